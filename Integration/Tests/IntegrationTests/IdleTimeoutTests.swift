import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// The idle limit (`Timeouts.lowSpeedTime` at `lowSpeedLimit` bytes per second; 60 s under 1 B/s by default)
/// against real servers: a body that stops arriving mid-way fails with `.timedOut`; a transfer the caller
/// suspended, or whose reader stopped reading (so the transport paused it), outlives the limit and then
/// completes byte-exact. libcurl leaves paused transfers out of its speed check and restarts the check on
/// resume; these tests hold it to that.
@Suite("Idle limit")
struct IdleTimeoutTests {
    static let idle = Duration.seconds(2)
    static let timeouts = Timeouts(request: .seconds(120), lowSpeedTime: idle, lowSpeedLimit: 1)

    /// 64 KiB, then the server waits 30 s before its next write: the idle limit fires long before.
    @Test func aBodyThatStopsMidWayFailsWithTimedOut() async throws {
        let s = session(Servers.compression) { $0.timeouts = Self.timeouts }
        let request = try s.makeRequest(.get, "compressed?encoding=identity&size=256k&stall_after=65536&stall_ms=30000")
        let received = Box<Int>(0)
        let (outcome, elapsed) = await timed { () -> (any Error)? in
            do {
                let response = try await s.send(request)
                for try await chunk in response.body { received.update { $0 += chunk.count } }
                return nil
            } catch {
                return error
            }
        }
        #expect(received.value == 64 * 1024, "the stall comes after the first 64 KiB")
        let code = (outcome as? TransportError)?.code ?? outcome.flatMap(transportCode)
        #expect(code == .timedOut, "\(String(describing: outcome))")
        // libcurl judges speed over a window of a few seconds; the server's 30 s pause is the bound that matters.
        #expect(elapsed < .seconds(25))
    }

    @Test func aSuspendedTransferOutlivesTheIdleLimit() async throws {
        let t = try transport { $0.responseBufferSize = 256 * 1024 }
        let s = session(Servers.nginx, transport: t) { $0.timeouts = Self.timeouts }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let task = s.downloadTask(with: try s.makeRequest(.get, "files/256m.bin"), to: DownloadDestination(url: directory.appendingPathComponent("out.bin")))
        task.resume()
        #expect(await eventually { task.downloadProgress.completed > 1 << 20 })
        task.suspend()
        try await Task.sleep(for: Self.idle * 2)
        task.resume()
        let response = try await task.response
        let size = try FileManager.default.attributesOfItem(atPath: response.fileURL.path)[.size] as? Int
        #expect(size == 256 << 20)
        await t.shutdown()
    }

    @Test func aReaderThatStopsReadingOutlivesTheIdleLimit() async throws {
        let t = try transport { $0.responseBufferSize = 256 * 1024 }
        let s = session(Servers.nginx, transport: t) { $0.timeouts = Self.timeouts }
        let response = try await s.send(try s.makeRequest(.get, "files/256m.bin"))
        var iterator = response.body.makeAsyncIterator()
        var total = try await iterator.next()?.count ?? 0
        try await Task.sleep(for: Self.idle * 2)   // the pipe fills, the transfer pauses
        while let chunk = try await iterator.next() { total += chunk.count }
        #expect(total == 256 << 20)
        await t.shutdown()
    }
}
