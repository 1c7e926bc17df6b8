import Dispatch

/// Holds a task's result once, for any number of awaiting callers and completion handlers
/// (delivered on their queue, inside their `DispatchGroup`).
final class CompletionSlot<Value: Sendable>: Sendable {
    typealias Outcome = Result<Value, CourierError>

    private struct Handler {
        let queue: DispatchQueue
        let group: DispatchGroup?
        let body: @Sendable (Outcome) -> Void
    }

    private struct Storage {
        var outcome: Outcome?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
        var handlers: [Handler] = []
    }

    private let storage = Locked(Storage())

    /// The result, once there is one.
    var outcome: Outcome? { storage.withLock { $0.outcome } }

    /// Sets the result (first call wins) and releases waiters and handlers.
    func resolve(_ outcome: Outcome) {
        let (waiters, handlers) = storage.withLock { storage -> ([CheckedContinuation<Outcome, Never>], [Handler]) in
            guard storage.outcome == nil else { return ([], []) }
            storage.outcome = outcome
            defer { storage.waiters = []; storage.handlers = [] }
            return (storage.waiters, storage.handlers)
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
        for handler in handlers { deliver(outcome, to: handler) }
    }

    /// Waits for the result.
    func wait() async -> Outcome {
        if let outcome { return outcome }
        // Read back under the lock: the continuation orders resolver and waiter inside the
        // uninstrumented concurrency runtime, where ThreadSanitizer cannot see it.
        defer { _ = storage.withLock { $0.outcome } }
        return await withCheckedContinuation { continuation in
            let ready = storage.withLock { storage -> Outcome? in
                if let outcome = storage.outcome { return outcome }
                storage.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Calls `body` with the result on `queue`, entering `group` until it has run.
    func whenResolved(queue: DispatchQueue, group: DispatchGroup?, _ body: @escaping @Sendable (Outcome) -> Void) {
        let handler = Handler(queue: queue, group: group, body: body)
        group?.enter()
        let ready = storage.withLock { storage -> Outcome? in
            if let outcome = storage.outcome { return outcome }
            storage.handlers.append(handler)
            return nil
        }
        if let ready { deliver(ready, to: handler) }
    }

    private func deliver(_ outcome: Outcome, to handler: Handler) {
        handler.queue.async {
            handler.body(outcome)
            handler.group?.leave()
        }
    }
}
