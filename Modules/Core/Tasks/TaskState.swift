/// Where a task is in its life (AFNetworking's `NSURLSessionTaskState`).
public enum TaskState: Sendable, Hashable, CustomStringConvertible {
    /// Not moving bytes: not started yet, or suspended.
    case suspended
    /// Running.
    case running
    /// Cancelled, finishing.
    case canceling
    /// Done: succeeded, failed or cancelled.
    case completed

    /// The state's name.
    public var description: String {
        switch self {
        case .suspended: return "suspended"
        case .running: return "running"
        case .canceling: return "canceling"
        case .completed: return "completed"
        }
    }
}

/// The pure state machine behind a task: which transitions are allowed and what each one must
/// do. No I/O, no locks, so it is tested on its own.
struct TaskStateMachine: Sendable {
    enum Phase: Sendable, Equatable {
        case notStarted, running, suspended, canceling, completed
    }

    enum ResumeAction: Equatable { case start, unpause, none }
    enum SuspendAction: Equatable { case pause, none }
    enum CancelAction: Equatable { case abandon, abort, none }

    private(set) var phase: Phase = .notStarted

    var state: TaskState {
        switch phase {
        case .notStarted, .suspended: return .suspended
        case .running: return .running
        case .canceling: return .canceling
        case .completed: return .completed
        }
    }

    /// `resume()`: starts a new task, continues a suspended one, ignores the rest.
    mutating func resume() -> ResumeAction {
        switch phase {
        case .notStarted: phase = .running; return .start
        case .suspended: phase = .running; return .unpause
        case .running, .canceling, .completed: return .none
        }
    }

    /// `suspend()`: pauses a running task; a task that never started stays as it is, silently
    /// (AFNetworking posts a suspend notification only for a task that was not suspended).
    mutating func suspend() -> SuspendAction {
        guard phase == .running else { return .none }
        phase = .suspended
        return .pause
    }

    /// `cancel()`: a task never started is abandoned (it completes at once); a started one is
    /// aborted and completes when its work unwinds.
    mutating func cancel() -> CancelAction {
        switch phase {
        case .notStarted: phase = .canceling; return .abandon
        case .running, .suspended: phase = .canceling; return .abort
        case .canceling, .completed: return .none
        }
    }

    /// Marks the end; false when it had already ended.
    mutating func complete() -> Bool {
        guard phase != .completed else { return false }
        phase = .completed
        return true
    }

    /// Starts a task run inline by a structured call (no handle, no separate start).
    mutating func startInline() -> Bool {
        guard phase == .notStarted else { return false }
        phase = .running
        return true
    }
}
