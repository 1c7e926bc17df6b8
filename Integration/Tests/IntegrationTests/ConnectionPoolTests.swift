import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Connections are reused at any concurrency: with C calls in flight to one host, at most
/// min(C, the per-host limit) connections are ever opened, over HTTP/1.1 and over TLS. Counted by the
/// client (a transfer that did not reuse a connection opened one), so other suites' traffic to the same
/// nginx does not count.
@Suite("Connection pool", .serialized)
struct ConnectionPoolTests {
    static let limit = CurlTransport.Configuration().maximumConnectionsPerHost

    @Test(arguments: [16, 256, 1024], [false, true])
    func concurrencyNeverOpensMoreConnectionsThanTheLimit(inFlight: Int, tls: Bool) async throws {
        #expect(Self.limit == 8)
        let t = try transport {
            $0.httpVersion = .http1_1
            if tls { $0.certificateAuthorityFile = Servers.caFile }
        }
        let opened = try await run(calls: max(inFlight * 3, 600), inFlight: inFlight, tls: tls, transport: t)
        #expect(opened <= min(inFlight, Self.limit), "at \(inFlight) in flight \(opened) connections were opened")
        #expect(opened >= 1)
        await t.shutdown()
    }

    /// What the limit prevents, and proof that the count sees new connections: without a per-host
    /// limit, 256 calls in flight against a cache of 64 connections open far more than 64.
    @Test func withoutALimitTheCacheChurns() async throws {
        let t = try transport {
            $0.httpVersion = .http1_1
            $0.maximumConnectionsPerHost = 0
        }
        let opened = try await run(calls: 2_000, inFlight: 256, tls: false, transport: t)
        #expect(opened > 64, "\(opened) connections")
        await t.shutdown()
    }

    private func run(calls total: Int, inFlight: Int, tls: Bool, transport t: CurlTransport) async throws -> Int {
        let s = session(tls ? Servers.tls : Servers.nginx, transport: t) { $0.timeouts = Timeouts(request: .seconds(120)) }
        let request = try s.makeRequest(.get, "json")
        return try await withThrowingTaskGroup(of: Int.self) { group in
            var started = 0, opened = 0
            func add() {
                started += 1
                group.addTask {
                    let response = try await s.data(for: request)
                    #expect(response.head.status == .ok)
                    return response.metrics?.reusedConnection == false ? 1 : 0
                }
            }
            for _ in 0..<inFlight { add() }
            while let new = try await group.next() {
                opened += new
                if started < total { add() }
            }
            return opened
        }
    }
}
