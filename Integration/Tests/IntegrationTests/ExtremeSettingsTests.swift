import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Settings at the ends of their types' ranges (`Int.min`, `-1`, `0`, `1`, `Int.max`; durations from `.seconds(Int64.min)`
/// to `.seconds(Int64.max)`) never crash or stall a call: against nginx and the sink, a 1 MiB download, a small GET, an
/// upload from memory and one streamed, each ends within its bound, whole or with a typed error. Two of them did not:
/// `lowSpeedTime = .seconds(Int64.max)` (a way to write "never") trapped on an overflow, and `responseBufferSize = Int.min`
/// paused a body for good, since the point where a paused transfer resumes was below any count of bytes.
@Suite("Extreme settings", .serialized)
struct ExtremeSettingsTests {
    static let values = [Int.min, -1, 0, 1, 7, Int(Int32.max) + 1, Int.max]
    static let upload = Data(repeating: 0x61, count: 300_000)

    /// What one round of calls came to, a line per call.
    func round(_ configure: @escaping @Sendable (inout CurlTransport.Configuration) -> Void = { _ in },
               timeouts: Timeouts = Timeouts(connect: .seconds(5), request: .seconds(20)),
               maximumBody: Int = 64 << 20) async throws -> [String: Result<Int, CourierError>] {
        let t = try transport(configure)
        defer { Task { await t.shutdown() } }
        let s = session(Servers.nginx, transport: t) {
            $0.timeouts = timeouts
            $0.maximumResponseBodySize = maximumBody
        }
        let sink = session(Servers.sink, transport: t) { $0.timeouts = timeouts }
        var outcomes: [String: Result<Int, CourierError>] = [:]
        for path in ["files/1m.bin", "json"] {
            do { outcomes[path] = .success(try await s.data(for: try s.makeRequest(.get, path)).data.count) }
            catch { outcomes[path] = .failure(error) }
        }
        do { outcomes["upload"] = .success(try await sink.data(for: try sink.makeRequest(.post, "up"), body: Body(Self.upload)).status.code) }
        catch { outcomes["upload"] = .failure(error) }
        let chunks = AsyncStream<ArraySlice<UInt8>> { c in
            for _ in 0..<3 { c.yield(ArraySlice(Self.upload)) }
            c.finish()
        }
        do {
            let body = Body(chunks, length: .unknown, iterationBehavior: .single)
            outcomes["stream"] = .success(try await sink.data(for: try sink.makeRequest(.post, "up"), body: body).status.code)
        } catch { outcomes["stream"] = .failure(error) }
        return outcomes
    }

    func expectWhole(_ outcomes: [String: Result<Int, CourierError>], _ label: String) {
        let expected = ["files/1m.bin": 1_048_576, "json": 600, "upload": 200, "stream": 200]
        for (call, value) in expected {
            #expect((try? outcomes[call]?.get()) == value, "\(label), \(call): \(String(describing: outcomes[call]))")
        }
    }

    @Test(arguments: ["maximumCachedConnections", "maximumConnectionsPerHost", "maximumTotalConnections", "responseBufferSize",
                      "requestBufferSize", "receiveBufferSize", "sendBufferSize", "idlePolling", "completionCoalescing"])
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
                default: configuration.completionCoalescing = .nanoseconds(value)
                }
            }
            let started = ContinuousClock.now
            expectWhole(try await round(configure), "\(name) = \(value)")
            #expect(ContinuousClock.now - started < chaosBound(.seconds(20)), "\(name) = \(value)")
        }
    }

    /// Durations of any size: nil and the longest run whole; the shortest (under a millisecond, or negative, which
    /// libcurl is given as 1 ms) may time out, and then do so typed.
    @Test(arguments: ["connect", "request", "lowSpeedTime"])
    func timeouts(name: String) async throws {
        let durations: [Duration?] = [nil, .seconds(Int64.min), .nanoseconds(-1), .zero, .nanoseconds(1), .milliseconds(1),
                                      .seconds(Int64.max / 1000), .seconds(Int64.max)]
        for duration in durations {
            var timeouts = Timeouts(connect: .seconds(5), request: .seconds(20))
            switch name {
            case "connect": timeouts.connect = duration
            case "request": timeouts.request = duration
            default: timeouts.lowSpeedTime = duration
            }
            let started = ContinuousClock.now
            let outcomes = try await round(timeouts: timeouts)
            let label = "\(name) = \(String(describing: duration))"
            if duration.map({ $0 >= .seconds(1) }) ?? true {
                expectWhole(outcomes, label)
            }
            for (call, outcome) in outcomes {
                if case .failure(let error) = outcome {
                    #expect(error.kind == .timedOut, "\(label), \(call): \(error)")
                }
            }
            #expect(ContinuousClock.now - started < chaosBound(.seconds(20)), "\(label)")
        }
        for limit in [Int.min, -1, 0, 1, Int.max] {
            let outcomes = try await round(timeouts: Timeouts(connect: .seconds(5), request: .seconds(20), lowSpeedTime: .seconds(5), lowSpeedLimit: limit))
            for (call, outcome) in outcomes {
                if case .failure(let error) = outcome { #expect(error.kind == .timedOut, "lowSpeedLimit = \(limit), \(call): \(error)") }
            }
        }
    }

    /// A body limit of any size: the calls whose body fits arrive, the others fail `.tooLarge`, none crash.
    @Test func bodyLimits() async throws {
        for limit in Self.values {
            let outcomes = try await round(maximumBody: limit)
            for path in ["files/1m.bin", "json"] {
                switch outcomes[path] {
                case .success(let count): #expect(count <= max(0, limit), "limit \(limit), \(path): \(count)")
                case .failure(let error): #expect(error.kind == .tooLarge, "limit \(limit), \(path): \(error)")
                case nil: Issue.record("limit \(limit), \(path): no outcome")
                }
            }
        }
    }
}
