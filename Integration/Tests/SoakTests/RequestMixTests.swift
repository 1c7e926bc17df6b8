import CourierSoakKit
import Testing

/// The mix is what RequestKind's weights say, and a request is a function of the seed and its index.
@Suite("Soak request mix")
struct RequestMixTests {
    @Test func weightsAddUpToAHundred() {
        #expect(RequestKind.allCases.map(\.weight).reduce(0, +) == 100)
    }

    @Test func sharesFollowTheWeights() {
        var counts: [RequestKind: Int] = [:]
        for index in 0..<100_000 { counts[RequestPlan(index: index, seed: 12).kind, default: 0] += 1 }
        for kind in RequestKind.allCases {
            // 100,000 draws: a share is within ±0.5 point of its weight (over 4 standard deviations).
            let share = Double(counts[kind, default: 0]) / 1_000
            #expect(abs(share - Double(kind.weight)) < 0.5, "\(kind): \(share) %")
        }
    }

    @Test func aRequestDependsOnSeedAndIndexOnly() {
        var first = RequestPlan(index: 4_242, seed: 7), again = RequestPlan(index: 4_242, seed: 7)
        #expect(first.kind == again.kind)
        #expect(first.draw(0...1_000_000) == again.draw(0...1_000_000))
        let kinds = (0..<64).map { RequestPlan(index: $0, seed: 7).kind }
        let otherSeed = (0..<64).map { RequestPlan(index: $0, seed: 8).kind }
        #expect(kinds != otherSeed)
    }

    @Test func optionsParseFromArgumentsOverTheEnvironment() throws {
        let options = try SoakOptions.parse(
            ["--requests", "500", "--no-flatness", "--samples", "/tmp/s.tsv"],
            environment: ["COURIER_SOAK_REQUESTS": "9", "COURIER_SOAK_CONCURRENCY": "8"]
        )
        #expect(options.requests == 500 && options.concurrency == 8 && !options.judgesFlatness && options.samplesPath == "/tmp/s.tsv")
        #expect(throws: UsageError.self) { try SoakOptions.parse(["--requests", "0"], environment: [:]) }
        #expect(throws: UsageError.self) { try SoakOptions.parse(["--bogus", "1"], environment: [:]) }
    }
}
