import Dispatch

/// The machinery a handle with a result shares (``DataTask``, ``DownloadTask``): the slot the
/// session resolves once, awaited by any number of callers or delivered to completion handlers on
/// the session's queue and group. Each handle keeps only its own doc comments and what it adds.
protocol ResponseHandle: TaskHandle {
    associatedtype Response: Sendable
    /// Where the session puts the result, once.
    var slot: CompletionSlot<Response> { get }
    /// Gives the default completion queue and group.
    var session: Session { get }
}

extension ResponseHandle {
    /// The result: awaiting it resumes a task nobody started, and cancelling the awaiting Swift
    /// task cancels this one.
    var awaitedResponse: Response {
        get async throws(CourierError) { try await slot.value(resuming: task) }
    }

    /// Calls `handler` once with the result on `queue`, inside `group`, each defaulting to the
    /// session's.
    func deliverResponse(
        queue: DispatchQueue?,
        group: DispatchGroup?,
        _ handler: @escaping @Sendable (Result<Response, CourierError>) -> Void
    ) {
        slot.whenResolved(
            queue: queue ?? session.completionQueue,
            group: group ?? session.configuration.completionGroup,
            handler
        )
    }
}
