import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// `CurlTransport.shutdown()` against real servers: what is in flight fails with `.shutDown`, what comes
/// later fails at once instead of waiting for a loop that is gone, and a second call returns too.
/// (`shutdownAll()` would stop the other suites' transports here; `courier` uses it before every exit, and
/// `Scripts/exit-loop.sh` runs that.)
@Suite("Transport shutdown")
struct ShutdownTests {
    @Test func inFlightAndLaterRequestsFailWithShutDown() async throws {
        let t = try transport { _ in }
        let s = session(Servers.fault, transport: t) { $0.timeouts = Timeouts(request: .seconds(60)) }
        let hanging = Task { try await s.data(for: try s.makeRequest(.get, "never")) }
        // The fault server's /never answers nothing: wait until the request has surely been sent.
        try await Task.sleep(for: .milliseconds(300))
        await t.shutdown()
        await #expect { _ = try await hanging.value } throws: { transportCode($0) == .shutDown }

        let (_, elapsed) = await timed {
            await #expect { _ = try await s.data(for: try s.makeRequest(.get, "health")) } throws: {
                transportCode($0) == .shutDown
            }
        }
        // Bounded by the request timeout (60 s), which a request waiting for a stopped loop would reach.
        #expect(elapsed < .seconds(30))
        await t.shutdown()   // idempotent
    }

    /// A streamed upload and a file upload refused after the shutdown end cleanly too.
    @Test func uploadsAfterShutdownFailWithShutDown() async throws {
        let t = try transport { _ in }
        let s = session(Servers.httpbin, transport: t)
        await t.shutdown()
        let file = try temporaryDirectory().appendingPathComponent("body")
        try Data("hello".utf8).write(to: file)
        let request = try s.makeRequest(.post, "post")
        await #expect { _ = try await s.data(for: request, body: try Body(contentsOfFileAt: file.path)) } throws: {
            transportCode($0) == .shutDown
        }
        let stream = Body(AsyncStream<ArraySlice<UInt8>> { $0.yield([1, 2, 3]); $0.finish() }, length: .unknown, iterationBehavior: .single)
        await #expect { _ = try await s.data(for: request, body: stream) } throws: { transportCode($0) == .shutDown }
        try? FileManager.default.removeItem(at: file.deletingLastPathComponent())
    }
}
