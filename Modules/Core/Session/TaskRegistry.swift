
/// The session's live tasks, so `invalidate(cancelingTasks:)` can reach them. A task leaves when
/// it finishes.
final class TaskRegistry: Sendable {
    private struct Storage {
        var invalidated = false
        var tasks: [UInt64: SessionTask] = [:]
    }

    private let storage = Locked(Storage())

    /// Adds a task; false once the session is invalidated.
    func register(_ task: SessionTask) -> Bool {
        storage.withLock { storage in
            guard !storage.invalidated else { return false }
            storage.tasks[task.id] = task
            return true
        }
    }

    func remove(_ task: SessionTask) {
        _ = storage.withLock { $0.tasks.removeValue(forKey: task.id) }
    }

    /// Refuses new tasks from now on and returns the live ones.
    func invalidate() -> [SessionTask] {
        storage.withLock { storage in
            storage.invalidated = true
            return Array(storage.tasks.values)
        }
    }

    var isInvalidated: Bool { storage.withLock { $0.invalidated } }
    var tasks: [SessionTask] { storage.withLock { Array($0.tasks.values) } }
}
