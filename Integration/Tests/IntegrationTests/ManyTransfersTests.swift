import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// 10,000 transfers in flight on one transport, most of them queued for one of the host's 8 connections, all
/// suspended and resumed: libcurl cannot pause a transfer that has no connection yet, so each of these is
/// retried after every loop pass until it has one. The retry list is a flag per transfer (O(1) to add, no
/// search of the list), so each pass costs in proportion to the transfers waiting, not to its square.
/// (2,000 transfers under ThreadSanitizer.)
@Suite("Many transfers in flight")
struct ManyTransfersTests {
    @Test func tenThousandSuspendedAndResumedTransfersAllComplete() async throws {
        let count = ProcessInfo.processInfo.environment["COURIER_SANITIZER"] != nil ? 2_000 : 10_000
        let t = try transport { _ in }
        let s = session(Servers.nginx, transport: t) { $0.timeouts = Timeouts(request: .seconds(300)) }
        let request = try s.makeRequest(.get, "json")
        let tasks = (0..<count).map { _ in s.dataTask(with: request) }
        for task in tasks { task.resume() }
        for task in tasks { task.suspend() }
        try await Task.sleep(for: .milliseconds(100))
        for task in tasks { task.resume() }
        var succeeded = 0
        for task in tasks where try await task.response.head.status == .ok { succeeded += 1 }
        #expect(succeeded == count)
        await t.shutdown()
    }
}
