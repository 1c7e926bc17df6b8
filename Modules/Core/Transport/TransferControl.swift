import Dispatch

/// The switch a task holds over its transfers: running, suspended or cancelled.
///
/// A task's `suspend()`, `resume()` and `cancel()` flip it; a transport reads it, waits on it, or
/// observes it to pause and abort the wire transfer (with libcurl, `curl_easy_pause`).
public final class TransferControl: Sendable {
    /// What the transfer should be doing.
    public enum State: Sendable, Hashable {
        /// Move bytes.
        case running
        /// Move no bytes until resumed.
        case suspended
        /// Stop for good.
        case cancelled
    }

    /// A registration made with ``TransferControl/observe(_:)``; cancel it when the exchange ends.
    public struct Observation: Sendable {
        let control: TransferControl
        let id: UInt64

        /// Stops the observer from being called.
        public func cancel() { control.removeObserver(id) }
    }

    private struct Storage {
        var state: State
        var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
        /// The first observer, out of the dictionary: nearly every control has exactly one (the transfer of its
        /// current exchange), and a dictionary would cost every call one more allocation.
        var observer: (id: UInt64, notify: @Sendable (State) -> Void)?
        var moreObservers: [UInt64: @Sendable (State) -> Void] = [:]
        var nextID: UInt64 = 0
    }

    private let storage: Locked<Storage>

    /// A control in the given state (a new task's transfers start `.running`).
    public init(state: State = .running) {
        storage = Locked(Storage(state: state))
    }

    /// The current state.
    public var state: State { storage.withLock { $0.state } }

    /// True once cancelled.
    public var isCancelled: Bool { state == .cancelled }

    /// Returns at once while running; waits while suspended; throws `CancellationError` once
    /// cancelled (or when the calling Swift task is cancelled).
    public func waitUntilRunning() async throws {
        try Task.checkCancellation()
        let id = storage.withLock { storage -> UInt64? in
            guard storage.state == .suspended else { return nil }
            storage.nextID += 1
            return storage.nextID
        }
        guard let id else {
            if state == .cancelled { throw CancellationError() }
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = storage.withLock { storage -> State? in
                    guard storage.state == .suspended, !Task.isCancelled else { return storage.state }
                    storage.waiters[id] = continuation
                    return nil
                }
                switch outcome {
                case nil: break
                case .cancelled?: continuation.resume(throwing: CancellationError())
                case .running?, .suspended?:
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
            }
        } onCancel: {
            let waiter = storage.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Sleeps for `duration` like `Task.sleep`, but ends early with `CancellationError` when the
    /// control is cancelled; if the control is suspended when the time is up, waits for resume.
    /// Transports use it to model server delays and retry back-off.
    public func sleep(for duration: Duration) async throws {
        let sleeper = Task { try await Task.sleep(for: duration) }
        let observation = observe { state in
            if state == .cancelled { sleeper.cancel() }
        }
        defer { observation.cancel() }
        if isCancelled { sleeper.cancel() }
        try await withTaskCancellationHandler {
            try await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        try await waitUntilRunning()
    }

    /// Calls `observer` on every change of state, on the thread that made the change, until the
    /// returned observation is cancelled. The observer must be quick and must not call back into
    /// the control.
    public func observe(_ observer: @escaping @Sendable (State) -> Void) -> Observation {
        let id = storage.withLock { storage -> UInt64 in
            storage.nextID += 1
            if storage.observer == nil {
                storage.observer = (storage.nextID, observer)
            } else {
                storage.moreObservers[storage.nextID] = observer
            }
            return storage.nextID
        }
        return Observation(control: self, id: id)
    }

    private func removeObserver(_ id: UInt64) {
        storage.withLock { storage in
            if storage.observer?.id == id {
                storage.observer = nil
            } else {
                storage.moreObservers.removeValue(forKey: id)
            }
        }
    }

    /// Moves to `newState` and tells waiters and observers. A cancelled control stays cancelled.
    func transition(to newState: State) {
        let (waiters, observers) = storage.withLock { storage -> ([CheckedContinuation<Void, any Error>], [@Sendable (State) -> Void]) in
            guard storage.state != .cancelled, storage.state != newState else { return ([], []) }
            storage.state = newState
            var released: [CheckedContinuation<Void, any Error>] = []
            if newState != .suspended {
                released = Array(storage.waiters.values)
                storage.waiters.removeAll()
            }
            var observers = Array(storage.moreObservers.values)
            if let observer = storage.observer { observers.append(observer.notify) }
            return (released, observers)
        }
        for observer in observers { observer(newState) }
        for waiter in waiters {
            if newState == .cancelled {
                waiter.resume(throwing: CancellationError())
            } else {
                waiter.resume()
            }
        }
    }
}
