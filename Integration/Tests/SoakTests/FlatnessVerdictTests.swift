import CourierSoakKit
import Testing

/// The soak's verdict must be able to fail: a measure that keeps growing after warm-up fails it, a
/// flat one with noise inside the slack passes, and a run too short to split fails as unjudged.
@Suite("Soak flatness verdict")
struct FlatnessVerdictTests {
    /// 60 one-second samples of a run of 6,000 requests (100 a second); `resident`, `descriptors` and
    /// `threads` give each second's values.
    func samples(
        resident: (Int) -> Int = { _ in 100_000 },
        descriptors: (Int) -> Int = { _ in 50 },
        threads: (Int) -> Int = { _ in 10 }
    ) -> [ResourceSample] {
        var peak = 0
        return (0..<60).map { second in
            peak = max(peak, resident(second))
            return ResourceSample(
                seconds: Double(second), completed: second * 100, residentKiB: resident(second), peakResidentKiB: peak,
                descriptors: descriptors(second), threads: threads(second)
            )
        }
    }

    func judge(_ samples: [ResourceSample]) -> FlatnessVerdict {
        FlatnessVerdict.judge(samples, requests: 6_000, warmUpFraction: 0.1, warmUpSeconds: 10)
    }

    @Test func flatWithNoisePasses() {
        // Warm-up grows memory a lot; afterwards it wobbles by 4 MiB, descriptors by 10, threads by 2.
        let verdict = judge(samples(
            resident: { $0 < 10 ? 20_000 * $0 : 200_000 + ($0 % 3) * 4_096 },
            descriptors: { $0 < 10 ? $0 : 40 + ($0 * 7) % 11 },
            threads: { 10 + $0 % 3 }
        ))
        #expect(verdict.warmUpEnd == 10)
        #expect(verdict.firstHalf == 10..<35 && verdict.secondHalf == 35..<60)
        #expect(verdict.passed, "\(verdict.checks)")
    }

    @Test func steadyMemoryGrowthFails() {
        // 512 KiB a second: 12.5 MiB over the second half, above the 8 MiB slack.
        let verdict = judge(samples(resident: { 100_000 + 512 * $0 }))
        #expect(!verdict.passed)
        #expect(verdict.checks.filter { !$0.passed }.map(\.measure) == ["resident memory (KiB)", "peak resident memory (KiB)"])
    }

    @Test func aSpikeOnlyThePeakSawFails() {
        // RSS samples stay flat but VmHWM jumps by 20 MiB in the second half: a spike between samples.
        var all = samples()
        for index in 50..<60 { all[index].peakResidentKiB = 100_000 + 20 * 1024 }
        let verdict = judge(all)
        #expect(verdict.checks.filter { !$0.passed }.map(\.measure) == ["peak resident memory (KiB)"])
    }

    @Test func leakedDescriptorsAndThreadsFail() {
        #expect(!judge(samples(descriptors: { 50 + $0 })).passed)   // one a second: 25 more in the second half
        #expect(!judge(samples(threads: { 10 + $0 / 5 })).passed)   // one every 5 s
        #expect(judge(samples(descriptors: { 50 + ($0 > 40 ? 16 : 0) })).passed)  // within the slack
    }

    @Test func tooShortToJudgeFails() {
        let short = Array(samples().prefix(14))  // warm-up ends at 10 s: 4 samples after it
        let verdict = judge(short)
        #expect(verdict.tooShort != nil)
        #expect(!verdict.passed)
        let neverWarm = FlatnessVerdict.judge(samples(), requests: 100_000, warmUpFraction: 0.1, warmUpSeconds: 10)
        #expect(neverWarm.warmUpEnd == nil && !neverWarm.passed)
    }

    @Test func theTableBucketsAndLabelsPhases() {
        #expect(SampleTable.bucketSeconds(for: 25) == 1)
        #expect(SampleTable.bucketSeconds(for: 59) == 2)
        #expect(SampleTable.bucketSeconds(for: 200) == 10)
        let all = samples()
        // Warm-up ends at 11 s, inside the 10–12 bucket.
        let verdict = FlatnessVerdict.judge(all, requests: 6_000, warmUpFraction: 0.1, warmUpSeconds: 11)
        let table = SampleTable.markdown(all, verdict: verdict)
        let rows = table.split(separator: "\n").dropFirst(2)
        #expect(rows.count == 30)
        #expect(rows.first?.hasPrefix("| 0–2 | 100 | 100 | 97.7 |") == true)
        #expect(rows.filter { $0.hasSuffix("| warm-up, first half |") }.map { $0.prefix(9) } == ["| 10–12 |"])
        #expect(rows.last?.hasSuffix("| second half |") == true)
    }
}
