import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Calls to a host whose name takes long to resolve. Scripts/slow-dns-test.sh runs this suite in a mount namespace
/// whose /etc/resolv.conf names a resolver on 127.0.0.99 that swallows every query (30 s a try), with
/// `COURIER_SLOW_DNS_HOST` set; elsewhere it is skipped.
///
/// Why: libcurl 7.88's threaded resolver waits for a lookup in progress when its transfer leaves the multi handle (a
/// cancellation, a timeout) unless `CURLOPT_QUICK_EXIT` is set, so the curl thread, and every other call of the
/// transport, stalled until the lookup gave up. The lookups are 30 s long here, so each bound below (5 s at most,
/// 8 s under a sanitizer) tells a stall from none.
@Suite("Slow name lookups", .enabled(if: SlowLookup.host != nil, "needs Scripts/slow-dns-test.sh: a resolver that never answers"))
struct SlowNameLookupTests {
    @Test func aTimeoutDuringTheLookupEndsOnTimeAndFreesTheTransport() async throws {
        let t = try transport { _ in }
        let slow = session(SlowLookup.nginx, transport: t) { $0.timeouts = Timeouts(request: .seconds(1)) }
        let (_, elapsed) = await timed {
            await #expect { _ = try await slow.data(for: try slow.makeRequest(.get, "json")) } throws: {
                transportCode($0) == .timedOut
            }
        }
        #expect(elapsed < TimeBounds.limit(.seconds(1)), "a 1 s timeout during a name lookup took \(elapsed)")
        try await expectServedPromptly(by: t)
        await t.shutdown()
    }

    @Test func cancellingACallInTheLookupFreesTheTransport() async throws {
        let (t, call) = try await callInItsLookup()
        let (_, elapsed) = await timed {
            call.cancel()
            await #expect { _ = try await call.value } throws: { ($0 as? CourierError)?.isCancellation == true }
        }
        #expect(elapsed < TimeBounds.prompt, "a cancellation during a name lookup took \(elapsed)")
        try await expectServedPromptly(by: t)
        await t.shutdown()
    }

    @Test func otherCallsGoOnWhileALookupIsSlow() async throws {
        let (t, call) = try await callInItsLookup()
        try await expectServedPromptly(by: t)
        call.cancel()
        _ = try? await call.value
        await t.shutdown()
    }

    /// A transport with a call (no timeout of its own to speak of) waiting for its name lookup.
    private func callInItsLookup() async throws -> (CurlTransport, Task<DataResponse, any Error>) {
        let t = try transport { _ in }
        let slow = session(SlowLookup.nginx, transport: t) { $0.timeouts = Timeouts(request: .seconds(120)) }
        let call = Task { try await slow.data(for: try slow.makeRequest(.get, "json")) }
        // Long enough for the call to reach libcurl and its lookup to begin.
        try await Task.sleep(for: .milliseconds(300))
        return (t, call)
    }

    /// Expects nginx's `/json` through `transport` within ``TimeBounds/prompt``: the curl thread is free.
    private func expectServedPromptly(by transport: CurlTransport) async throws {
        let fast = session(Servers.nginx, transport: transport)
        let (response, elapsed) = try await timed { try await fast.data(for: try fast.makeRequest(.get, "json")) }
        #expect(response.status.code == 200)
        #expect(elapsed < TimeBounds.prompt, "the transport's next call took \(elapsed)")
    }
}

enum SlowLookup {
    /// A name the resolver of Scripts/slow-dns-test.sh never answers for; nil outside it.
    static let host = ProcessInfo.processInfo.environment["COURIER_SLOW_DNS_HOST"]
    /// nginx, by that name.
    static var nginx: String {
        let port = URL(string: Servers.nginx)?.port ?? 80
        return "http://\(host ?? "unset"):\(port)"
    }
}
