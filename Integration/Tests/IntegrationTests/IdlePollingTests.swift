import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// The curl thread polls for a moment before it sleeps while events come soon after it goes idle, and stops
/// polling when they do not.
@Suite("Curl idle polling")
struct IdlePollingTests {
    /// Calls one after another poll (the next call or the server's answer comes soon after the thread goes idle);
    /// once the transport is idle, it polls at most what its shrinking windows allow (each at most `maximum`,
    /// halving, so under twice `maximum` in all), then sleeps: never the whole idle time.
    @Test func callsInARowPollAndAnIdleTransportSleeps() async throws {
        let maximum: Duration = .milliseconds(5)
        let t = try transport { $0.idlePolling = maximum }
        let s = session(Servers.nginx, transport: t)
        let request = try s.makeRequest(.get, "json")
        for _ in 0..<100 {
            let response = try await s.data(for: request)
            #expect(response.status == .ok)
        }
        #expect(t.idlePollingTime > .zero, "a hundred calls in a row never found the thread polling")
        let before = t.idlePollingTime
        let idle: Duration = .seconds(2)
        try await Task.sleep(for: idle)
        // A poll is counted when it ends: one more call ends any poll still going, and may poll once more itself.
        #expect(try await s.data(for: request).status == .ok)
        let polledWhileIdle = t.idlePollingTime - before
        // The slack is for a busy machine, where a polling thread can lose its processor mid-poll; a thread that
        // kept polling would show the whole idle time.
        #expect(polledWhileIdle < maximum * 3 + .milliseconds(400), "polled \(polledWhileIdle) of \(idle) idle")
        await t.shutdown()
    }

    @Test func pollingOffNeverPolls() async throws {
        let t = try transport { $0.idlePolling = .zero }
        let s = session(Servers.nginx, transport: t)
        let request = try s.makeRequest(.get, "json")
        for _ in 0..<20 {
            #expect(try await s.data(for: request).status == .ok)
        }
        #expect(t.idlePollingTime == .zero)
        await t.shutdown()
    }
}
