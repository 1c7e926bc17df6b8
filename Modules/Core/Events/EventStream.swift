/// Lifecycle events as an `AsyncStream`, for code that prefers `for await` to a listener.
///
/// ```swift
/// let events = EventStream()
/// let session = Session(configuration: .init(eventListener: events.listener), transport: transport)
/// Task { for await event in events.stream { print(event.kind, event.task.id) } }
/// ```
/// Call ``finish()`` when done. The buffer is bounded: while the reader is behind by ``limit``
/// events, the oldest event that does not end a task (progress first of all) is dropped for each new
/// one, and ``droppedCount`` says how many were; `taskCompleted` and `taskFailed` are never dropped,
/// so a reader always learns how every task ended.
public struct EventStream: Sendable {
    /// The events, in the order they happened.
    public let stream: AsyncStream<TaskEvent>
    /// The listener to install in a session.
    public let listener: EventForwarder
    private let buffer: EventBuffer

    /// The most events held for a reader that is behind (terminal events aside).
    public var limit: Int { buffer.limit }

    /// A new stream and its listener, holding at most `limit` events (1,024 by default) for a reader that is behind.
    public init(limit: Int = 1024) {
        let buffer = EventBuffer(limit: max(1, limit))
        self.buffer = buffer
        self.stream = AsyncStream(unfolding: { await buffer.next() })
        self.listener = EventForwarder { buffer.yield($0) }
    }

    /// Events dropped so far because the reader was behind.
    public var droppedCount: Int { buffer.droppedCount }

    /// Ends the stream: the reader gets what is buffered, then the end.
    public func finish() { buffer.finish() }
}

/// The bounded queue behind ``EventStream``: one reader, any number of writers.
final class EventBuffer: Sendable {
    private struct State {
        var events: [TaskEvent] = []
        var head = 0
        var waiter: CheckedContinuation<TaskEvent?, Never>?
        var finished = false
        var dropped = 0
        var count: Int { events.count - head }
    }

    private let state = Locked(State())
    let limit: Int

    init(limit: Int) { self.limit = limit }

    var droppedCount: Int { state.withLock { $0.dropped } }

    static func isTerminal(_ event: TaskEvent) -> Bool {
        event.kind == .taskCompleted || event.kind == .taskFailed
    }

    func yield(_ event: TaskEvent) {
        let waiter = state.withLock { state -> CheckedContinuation<TaskEvent?, Never>? in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.events.append(event)
            if state.count > limit, let index = state.events[state.head...].firstIndex(where: { !Self.isTerminal($0) }) {
                state.events.remove(at: index)
                state.dropped += 1
            }
            if state.head > 1024, state.head * 2 > state.events.count {
                state.events.removeFirst(state.head)
                state.head = 0
            }
            return nil
        }
        waiter?.resume(returning: event)
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<TaskEvent?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.count == 0 ? state.waiter : nil
        }
        waiter?.resume(returning: nil)
    }

    func next() async -> TaskEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<TaskEvent?, Never>) in
                let ready = state.withLock { state -> TaskEvent?? in
                    if state.count > 0 {
                        defer { state.head += 1 }
                        return .some(state.events[state.head])
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<TaskEvent?, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }
}
