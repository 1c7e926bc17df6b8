/// What a ``TransferControl`` holds: its state, the transfers waiting for it to run, and its observers. Pure: the
/// lock around it is its owner's (a task's, or a control's own), and the waiters and observers a change releases
/// are handed back to be told after the lock is let go, or under it where the owner orders changes by it.
struct TransferControlState {
    typealias Observer = @Sendable (TransferControl.State) -> Void

    /// Waiters and observers to tell of a change, and the state they are told of.
    struct Release {
        let state: TransferControl.State
        var waiters: [CheckedContinuation<Void, any Error>] = []
        /// The first observer apart, so that telling the usual single one allocates nothing.
        var firstObserver: Observer?
        var moreObservers: [Observer] = []

        /// Tells the observers, then resumes the waiters (throwing when the control was cancelled).
        func deliver() {
            for observer in moreObservers { observer(state) }
            firstObserver?(state)
            for waiter in waiters {
                if state == .cancelled {
                    waiter.resume(throwing: CancellationError())
                } else {
                    waiter.resume()
                }
            }
        }
    }

    private(set) var state: TransferControl.State
    private var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// The first observer, out of the dictionary: nearly every control has exactly one (the transfer of its
    /// current exchange), and a dictionary would cost every call one more allocation.
    private var observer: (id: UInt64, notify: Observer)?
    private var moreObservers: [UInt64: Observer] = [:]
    private var nextID: UInt64 = 0

    init(state: TransferControl.State) {
        self.state = state
    }

    /// An identifier for a waiter while suspended; nil when there is nothing to wait for.
    mutating func waiterID() -> UInt64? {
        guard state == .suspended else { return nil }
        nextID += 1
        return nextID
    }

    /// How many wait for the control to run.
    var waiterCount: Int { waiters.count }

    /// Keeps `continuation` until the next change when still suspended; otherwise returns the state it must be
    /// resumed by at once.
    mutating func wait(_ id: UInt64, _ continuation: CheckedContinuation<Void, any Error>, taskCancelled: Bool) -> TransferControl.State? {
        guard state == .suspended, !taskCancelled else { return state }
        waiters[id] = continuation
        return nil
    }

    /// The waiter `id`, if it still waits, taken out.
    mutating func removeWaiter(_ id: UInt64) -> CheckedContinuation<Void, any Error>? {
        waiters.removeValue(forKey: id)
    }

    /// Registers `notify` and returns its identifier.
    mutating func addObserver(_ notify: @escaping Observer) -> UInt64 {
        nextID += 1
        if observer == nil {
            observer = (nextID, notify)
        } else {
            moreObservers[nextID] = notify
        }
        return nextID
    }

    mutating func removeObserver(_ id: UInt64) {
        if observer?.id == id {
            observer = nil
        } else {
            moreObservers.removeValue(forKey: id)
        }
    }

    /// Moves to `newState`; nil when nothing changes (a cancelled control stays cancelled). Waiters are released
    /// by any state but `.suspended`; every observer hears every change.
    mutating func transition(to newState: TransferControl.State) -> Release? {
        guard state != .cancelled, state != newState else { return nil }
        state = newState
        var release = Release(state: newState)
        if newState != .suspended, !waiters.isEmpty {
            release.waiters = Array(waiters.values)
            waiters.removeAll()
        }
        if !moreObservers.isEmpty { release.moreObservers = Array(moreObservers.values) }
        release.firstObserver = observer?.notify
        return release
    }
}
