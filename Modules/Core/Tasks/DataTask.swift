import Dispatch
import FoundationEssentials

/// A task whose response body is read into memory: AFNetworking's data and upload tasks.
///
/// ```swift
/// let task = session.dataTask(with: request)
/// task.onCompletion { result in print(result) }   // on the session's completion queue
/// task.resume()
/// let response = try await task.response          // or await it; awaiting resumes a new task
/// ```
public final class DataTask: TaskHandle, ResponseHandle {
    /// The task behind the handle.
    public let task: SessionTask
    let slot = CompletionSlot<DataResponse>()
    let session: Session

    init(task: SessionTask, session: Session) {
        self.task = task
        self.session = session
    }

    /// The buffered response. Awaiting it resumes a task that was never resumed, and cancelling
    /// the awaiting Swift task cancels this task.
    public var response: DataResponse {
        get async throws(CourierError) { try await awaitedResponse }
    }

    /// The response turned into a value by `serializer`.
    public func value<Serializer: ResponseSerializer>(using serializer: Serializer) async throws(CourierError) -> Serializer.Value {
        try session.serialize(try await response, with: serializer)
    }

    /// The response turned into a value by the session's default response serializer, or its
    /// raw `Data` when the session has none.
    public func value() async throws(CourierError) -> any Sendable {
        let response = try await response
        guard let serializer = session.configuration.responseSerializer else { return response.data }
        return try session.serialize(response, with: serializer)
    }

    /// Calls `handler` once with the result, on `queue` (the session's completion queue when
    /// `nil`, never the main queue by default), inside `group` when one is given (the session's
    /// completion group when `nil`).
    @discardableResult
    public func onCompletion(
        queue: DispatchQueue? = nil,
        group: DispatchGroup? = nil,
        _ handler: @escaping @Sendable (Result<DataResponse, CourierError>) -> Void
    ) -> Self {
        deliverResponse(queue: queue, group: group, handler)
        return self
    }
}
