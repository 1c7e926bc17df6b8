import Dispatch
import FoundationEssentials

/// A task whose response body streams into a file, moved to its destination at the end
/// (AFNetworking's download task).
///
/// ```swift
/// let task = session.downloadTask(with: request, to: .suggested(in: URL(filePath: "/tmp")))
/// let file = try await task.response.fileURL
/// ```
public final class DownloadTask: TaskHandle, ResponseHandle {
    /// The task behind the handle.
    public let task: SessionTask
    let slot = CompletionSlot<DownloadResponse>()
    let session: Session

    init(task: SessionTask, session: Session) {
        self.task = task
        self.session = session
    }

    /// The finished download. Awaiting it resumes a task that was never resumed, and cancelling
    /// the awaiting Swift task cancels this task.
    public var response: DownloadResponse {
        get async throws(CourierError) { try await awaitedResponse }
    }

    /// Calls `handler` once with the result, on `queue` (the session's completion queue when
    /// `nil`), inside `group` when one is given.
    @discardableResult
    public func onCompletion(
        queue: DispatchQueue? = nil,
        group: DispatchGroup? = nil,
        _ handler: @escaping @Sendable (Result<DownloadResponse, CourierError>) -> Void
    ) -> Self {
        deliverResponse(queue: queue, group: group, handler)
        return self
    }
}
