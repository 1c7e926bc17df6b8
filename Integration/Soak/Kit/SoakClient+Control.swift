import CourierCore
import Foundation
import HTTPTypes

/// The exercises that steer a transfer: cancelling it mid-body, suspending and resuming it.
extension SoakClient {
    /// A body that takes at least 320 ms (16 writes of 64 KiB, 20 ms before each), so a cancel within
    /// 30 ms of the start, or at the first byte, always lands mid-transfer.
    private func slowBody(_ plan: inout RequestPlan) throws -> HTTPRequest {
        try request(.get, servers.compression + compressedQuery(encoding: "identity", size: "1m", seed: plan.draw(0...3), delayMilliseconds: 20))
    }

    func cancel(_ plan: inout RequestPlan) async throws {
        let slow = try slowBody(&plan)
        let failure: (any Error)?
        switch plan.draw(0...2) {
        case 0:
            // From the task's own progress handler, as soon as bytes arrive.
            let task = session.dataTask(with: slow)
            task.onDownloadProgress { progress in if progress.completed > 0 { task.cancel() } }
            task.resume()
            failure = await failureOf { _ = try await task.response }
        case 1:
            // By cancelling the Swift task that awaits a structured call.
            let call = Task { try await session.data(for: slow) }
            try await Task.sleep(for: .milliseconds(plan.draw(1...30)))
            call.cancel()
            failure = await failureOf { _ = try await call.value }
        default:
            // A download: its partial file must go too.
            let target = scratchFile(plan.index)
            let task = session.downloadTask(with: slow, to: DownloadDestination(url: target)).resume()
            try await Task.sleep(for: .milliseconds(plan.draw(1...30)))
            task.cancel()
            failure = await failureOf { _ = try await task.response }
            try check(!FileManager.default.fileExists(atPath: target.path), "a cancelled download left \(target.path)")
        }
        guard let failure else { throw WrongOutcome("completed, expected a cancellation") }
        try check((failure as? CourierError)?.isCancellation == true, "ended with \(failure), expected a cancellation")
    }

    func suspendResume(_ plan: inout RequestPlan) async throws {
        if plan.draw(0...1) == 0 {
            // Suspended mid-body: 256 KiB in 64 KiB writes 5 ms apart, suspended 0 to 10 ms in.
            let query = compressedQuery(encoding: plan.pick(["identity", "gzip"]), size: "256k", seed: plan.draw(0...3), delayMilliseconds: 5)
            let task = session.dataTask(with: try request(.get, servers.compression + query)).resume()
            try await Task.sleep(for: .milliseconds(plan.draw(0...10)))
            task.suspend()
            try await Task.sleep(for: .milliseconds(plan.draw(10...40)))
            task.resume()
            let response = try await task.response
            try checkDecoded(response.data, head: response.head)
            return
        }
        // Suspended at once, most likely before it has a connection, then resumed.
        let target = scratchFile(plan.index)
        let task = session.downloadTask(with: try request(.get, servers.nginx + "/files/1m.bin"), to: DownloadDestination(url: target))
        task.resume()
        task.suspend()
        try await Task.sleep(for: .milliseconds(plan.draw(5...30)))
        task.resume()
        let response = try await task.response
        try check(response.status.code == 200, "status \(response.status.code), expected 200")
        try checkOneMiBFile(target)
    }
}

/// The error `body` ends with, or nil when it returns.
private func failureOf(_ body: () async throws -> Void) async -> (any Error)? {
    do {
        try await body()
        return nil
    } catch {
        return error
    }
}
