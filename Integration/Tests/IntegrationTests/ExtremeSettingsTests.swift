import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Settings at the ends of their types' ranges (`Int.min`, `-1`, `0`, `1`, `Int.max`; durations from `.seconds(Int64.min)`
/// to `.seconds(Int64.max)`) never crash or stall a call: against nginx, the sink and the compression server, a 1 MiB
/// download, a small GET, a compressed body, an upload from memory and one streamed, each ends within its bound, whole
/// or with a typed error. Some did not: `lowSpeedTime` or `request` of `.seconds(Int64.max)` (ways to write "never")
/// trapped on overflows, a low-speed time past 2⁶³ / 1000 seconds wrapped inside libcurl, `responseBufferSize = Int.min`
/// paused a body for good, `requestBufferSize` of 0 or below could lose the wake-up of a streamed upload (about one run
/// in three of the whole suite), and `maximumRatio = Int.max` trapped once a compressed body had come.
@Suite("Extreme settings", .serialized)
struct ExtremeSettingsTests {
    static let values = [Int.min, -1, 0, 1, 7, Int(Int32.max) + 1, Int.max]
    static let upload = Data(repeating: 0x61, count: 300_000)
    /// Every call's own limit, and the bound of its attempt: a call whose settings gave it none must not hang either.
    static let callTimeout = Duration.seconds(20)
    static var callBound: Duration { chaosBound(callTimeout) }
    static let compressed = "compressed?encoding=gzip&size=2m&ratio=18&seed=5"

    /// What one round of calls came to, by call: the body's byte count or status code, or the error.
    func round(_ configure: @escaping @Sendable (inout CurlTransport.Configuration) -> Void = { _ in },
               timeouts: Timeouts = Timeouts(connect: .seconds(5), request: callTimeout),
               maximumBody: Int = 64 << 20) async throws -> [String: Result<Int, CourierError>] {
        let t = try transport(configure)
        let s = session(Servers.nginx, transport: t) {
            $0.timeouts = timeouts
            $0.maximumResponseBodySize = maximumBody
        }
        let sink = session(Servers.sink, transport: t) { $0.timeouts = timeouts }
        let compression = session(Servers.compression, transport: t) {
            $0.timeouts = timeouts
            $0.maximumResponseBodySize = maximumBody
        }
        var outcomes: [String: Result<Int, CourierError>] = [:]
        func record(_ call: String, _ outcome: ChaosOutcome, status: Bool = false) {
            #expect(!outcome.hung, "\(call) outlived its bound: \(outcome.summary)")
            if let response = outcome.response {
                outcomes[call] = .success(status ? response.status.code : response.data.count)
            } else if let error = outcome.error as? CourierError {
                outcomes[call] = .failure(error)
            }
        }
        for path in ["files/1m.bin", "json"] {
            record(path, await attempt(s, try s.makeRequest(.get, path), bound: Self.callBound))
        }
        record("compressed", await attempt(compression, try compression.makeRequest(.get, Self.compressed), bound: Self.callBound))
        record("upload", await attempt(sink, try sink.makeRequest(.post, "up"), body: Body(Self.upload), bound: Self.callBound), status: true)
        let chunks = AsyncStream<ArraySlice<UInt8>> { c in
            for _ in 0..<3 { c.yield(ArraySlice(Self.upload)) }
            c.finish()
        }
        let body = Body(chunks, length: .unknown, iterationBehavior: .single)
        record("stream", await attempt(sink, try sink.makeRequest(.post, "up"), body: body, bound: Self.callBound), status: true)
        await t.shutdown()
        return outcomes
    }

    func expectWhole(_ outcomes: [String: Result<Int, CourierError>], _ label: String) {
        let expected = ["files/1m.bin": 1_048_576, "json": 600, "compressed": 2 << 20, "upload": 200, "stream": 200]
        for (call, value) in expected {
            #expect((try? outcomes[call]?.get()) == value, "\(label), \(call): \(String(describing: outcomes[call]))")
        }
    }

    @Test(arguments: ["maximumCachedConnections", "maximumConnectionsPerHost", "maximumTotalConnections", "responseBufferSize",
                      "requestBufferSize", "receiveBufferSize", "sendBufferSize", "idlePolling", "completionCoalescing",
                      "maximumRatio", "ratioAppliesAbove"])
    func transportSettings(name: String) async throws {
        for value in Self.values {
            let configure: @Sendable (inout CurlTransport.Configuration) -> Void = { configuration in
                switch name {
                case "maximumCachedConnections": configuration.maximumCachedConnections = value
                case "maximumConnectionsPerHost": configuration.maximumConnectionsPerHost = value
                case "maximumTotalConnections": configuration.maximumTotalConnections = value
                case "responseBufferSize": configuration.responseBufferSize = value
                case "requestBufferSize": configuration.requestBufferSize = value
                case "receiveBufferSize": configuration.receiveBufferSize = value
                case "sendBufferSize": configuration.sendBufferSize = value
                case "idlePolling": configuration.idlePolling = .nanoseconds(value)
                case "completionCoalescing": configuration.completionCoalescing = .nanoseconds(value)
                case "maximumRatio": configuration.decompressionLimits.maximumRatio = value
                default: configuration.decompressionLimits.ratioAppliesAbove = Int64(value)
                }
            }
            let outcomes = try await round(configure)
            // A ratio limit refuses the 18:1 body when it is below that, or checks it from its first byte at 1:1.
            let refusesTheBody = (name == "maximumRatio" && value < 18)
            if refusesTheBody {
                #expect(outcomes["compressed"].map { if case .failure(let error) = $0 { (error.underlyingError as? TransportError)?.code == .decompressionLimitExceeded } else { false } } == true,
                        "\(name) = \(value): \(String(describing: outcomes["compressed"]))")
                var rest = outcomes
                rest["compressed"] = .success(2 << 20)
                expectWhole(rest, "\(name) = \(value)")
            } else {
                expectWhole(outcomes, "\(name) = \(value)")
            }
        }
    }

    /// Durations of any size: none, and the longest, run whole; the shortest (under a second, or negative, which libcurl
    /// is given as 1 ms) may time out, and then do so typed; so may any minimum rate.
    @Test(arguments: ["connect", "request", "lowSpeedTime"])
    func timeouts(name: String) async throws {
        let durations: [Duration?] = [nil, .seconds(Int64.min), .nanoseconds(-1), .zero, .nanoseconds(1), .milliseconds(1),
                                      .seconds(Int64.max / 1000), .seconds(Int64.max)]
        for duration in durations {
            var timeouts = Timeouts(connect: .seconds(5), request: Self.callTimeout)
            switch name {
            case "connect": timeouts.connect = duration
            case "request": timeouts.request = duration
            default: timeouts.lowSpeedTime = duration
            }
            let outcomes = try await round(timeouts: timeouts)
            let label = "\(name) = \(String(describing: duration))"
            if duration.map({ $0 >= .seconds(1) }) ?? true { expectWhole(outcomes, label) }
            for (call, outcome) in outcomes {
                if case .failure(let error) = outcome { #expect(error.kind == .timedOut, "\(label), \(call): \(error)") }
            }
        }
        guard name == "lowSpeedTime" else { return }
        for limit in [Int.min, -1, 0, 1, Int.max] {
            let outcomes = try await round(timeouts: Timeouts(connect: .seconds(5), request: Self.callTimeout, lowSpeedTime: .seconds(5), lowSpeedLimit: limit))
            for (call, outcome) in outcomes {
                if case .failure(let error) = outcome { #expect(error.kind == .timedOut, "lowSpeedLimit = \(limit), \(call): \(error)") }
            }
        }
    }

    /// A body limit of any size: the calls whose body fits arrive, the others fail `.tooLarge`, none crash.
    @Test func bodyLimits() async throws {
        for limit in Self.values {
            let outcomes = try await round(maximumBody: limit)
            for path in ["files/1m.bin", "json", "compressed"] {
                switch outcomes[path] {
                case .success(let count): #expect(count <= max(0, limit), "limit \(limit), \(path): \(count)")
                case .failure(let error): #expect(error.kind == .tooLarge, "limit \(limit), \(path): \(error)")
                case nil: Issue.record("limit \(limit), \(path): no outcome")
                }
            }
        }
    }
}
