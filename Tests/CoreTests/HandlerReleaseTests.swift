import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// A progress handler that captures its own task, the natural way to cancel at the first byte, must
/// not keep the task alive once it has ended (found by the soak under LeakSanitizer: every such task
/// leaked with its response, 1 MiB of body included). Completion handlers are already dropped when
/// the result is delivered; progress handlers are dropped when the task finishes.
@Suite("Handlers are released when a task ends")
struct HandlerReleaseTests {
    /// Watches an object without keeping it alive.
    final class Watch: @unchecked Sendable {
        // @unchecked: a weak reference is loaded and cleared atomically by the Swift runtime.
        weak var object: SessionTask?
        init(_ object: SessionTask) { self.object = object }
    }

    @Test(arguments: ["data", "upload", "download"])
    func progressHandlersCapturingTheirTaskAreReleased(kind: String) async throws {
        let session = Session(transport: MockTransport(always: .text(String(repeating: "x", count: 1_000))))
        let watch: Watch
        do {
            let request = mockRequest(kind == "upload" ? .post : .get)
            switch kind {
            case "data":
                let task = session.dataTask(with: request)
                task.onDownloadProgress { _ in _ = task.state }
                task.onUploadProgress { _ in _ = task.state }
                watch = Watch(task.task)
                _ = try await task.response
            case "upload":
                let task = session.uploadTask(with: request, from: .data(Data("body".utf8)))
                task.onUploadProgress { _ in _ = task.state }
                watch = Watch(task.task)
                _ = try await task.response
            default:
                let target = try temporaryDirectory().appending(path: "out.bin")
                let task = session.downloadTask(with: request, to: DownloadDestination(url: target))
                task.onDownloadProgress { _ in _ = task.state }
                watch = Watch(task.task)
                _ = try await task.response
            }
        }
        // Handlers already queued still run on the completion queue and then let go.
        #expect(await eventually { watch.object == nil })
    }

    @Test func aCancelledTaskWhoseHandlerCancelledItIsReleased() async throws {
        let session = Session(transport: MockTransport(always: .chunks((0..<20).map { _ in Data(repeating: 1, count: 1_000) }, interval: .milliseconds(5))))
        let watch: Watch
        do {
            let task = session.dataTask(with: mockRequest())
            task.onDownloadProgress { progress in if progress.completed > 0 { task.cancel() } }
            watch = Watch(task.task)
            _ = try? await task.response
        }
        #expect(await eventually { watch.object == nil })
    }

    @Test func aHandlerAddedAfterTheEndIsNotKept() async throws {
        let session = Session(transport: MockTransport(always: .status(.ok)))
        let watch: Watch
        do {
            let task = session.dataTask(with: mockRequest())
            _ = try await task.response
            task.onDownloadProgress { _ in _ = task.state }
            task.onUploadProgress { _ in _ = task.state }
            watch = Watch(task.task)
        }
        #expect(await eventually { watch.object == nil })
    }
}
