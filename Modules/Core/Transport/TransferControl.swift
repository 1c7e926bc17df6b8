/// The switch a task holds over its transfers: running, suspended or cancelled.
///
/// A task's `suspend()`, `resume()` and `cancel()` flip it; a transport reads it, waits on it, or
/// observes it to pause and abort the wire transfer (with libcurl, `curl_easy_pause`).
///
/// A control refers to its state rather than holding it: copies of one control are the same switch. The
/// control of a session's task keeps its state inside the task, under the task's lock, so a call makes no
/// object for it; a control made with ``init(state:)`` has state of its own.
public struct TransferControl: Sendable {
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
        public func cancel() { control.withState { $0.removeObserver(id) } }
    }

    /// Where the state lives.
    private enum Owner: Sendable {
        /// In a session task (``SessionTask/withControlState(_:)``).
        case task(SessionTask)
        /// Under a lock of the control's own.
        case own(Locked<TransferControlState>)
    }

    private let owner: Owner

    /// A control in the given state (a new task's transfers start `.running`), with state of its own: for a
    /// transport or an interceptor tested on its own.
    public init(state: State = .running) {
        owner = .own(Locked(TransferControlState(state: state)))
    }

    /// The control of `task`, whose state the task holds.
    init(task: SessionTask) {
        owner = .task(task)
    }

    private func withState<Result>(_ body: (inout TransferControlState) -> Result) -> Result {
        switch owner {
        case .task(let task): return task.withControlState(body)
        case .own(let locked): return locked.withLock(body)
        }
    }

    /// The current state.
    public var state: State { withState { $0.state } }

    /// True once cancelled.
    public var isCancelled: Bool { state == .cancelled }

    /// Returns at once while running; waits while suspended; throws `CancellationError` once
    /// cancelled (or when the calling Swift task is cancelled).
    public func waitUntilRunning() async throws {
        try Task.checkCancellation()
        guard let id = withState({ $0.waiterID() }) else {
            if state == .cancelled { throw CancellationError() }
            return
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                switch withState({ $0.wait(id, continuation, taskCancelled: Task.isCancelled) }) {
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
            withState { $0.removeWaiter(id) }?.resume(throwing: CancellationError())
        }
    }

    /// Sleeps for `duration` like `Task.sleep`, but ends early with `CancellationError` when the
    /// control is cancelled; if the control is suspended when the time is up, waits for resume.
    /// Transports use it to model server delays and retry back-off.
    public func sleep(for duration: Duration) async throws {
        // At most 68 years: the clock's deadline in nanoseconds must fit in 64 bits (`Task.sleep` traps past that).
        let bounded = min(duration, .seconds(Int32.max))
        let sleeper = Task { try await Task.sleep(for: bounded) }
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
    /// the control, nor into the task it belongs to: a task's suspend and resume tell observers while
    /// holding the task's lock, so that racing calls reach them in the order they took effect.
    public func observe(_ observer: @escaping @Sendable (State) -> Void) -> Observation {
        Observation(control: self, id: withState { $0.addObserver(observer) })
    }

    /// Moves to `newState` and tells waiters and observers. A cancelled control stays cancelled.
    /// For a control with state of its own; a task changes its control's state under its own lock.
    func transition(to newState: State) {
        withState { $0.transition(to: newState) }?.deliver()
    }
}
