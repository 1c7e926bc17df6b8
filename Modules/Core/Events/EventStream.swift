/// Lifecycle events as an `AsyncStream`, for code that prefers `for await` to a listener.
///
/// ```swift
/// let events = EventStream()
/// let session = Session(configuration: .init(eventListener: events.listener), transport: transport)
/// Task { for await event in events.stream { print(event.kind, event.task.id) } }
/// ```
/// Call ``finish()`` when done; the stream buffers without bound until read.
public struct EventStream: Sendable {
    /// The events, in the order they happened.
    public let stream: AsyncStream<TaskEvent>
    /// The listener to install in a session.
    public let listener: EventForwarder
    private let continuation: AsyncStream<TaskEvent>.Continuation

    /// A new stream and its listener.
    public init(bufferingPolicy: AsyncStream<TaskEvent>.Continuation.BufferingPolicy = .unbounded) {
        let (stream, continuation) = AsyncStream<TaskEvent>.makeStream(bufferingPolicy: bufferingPolicy)
        self.stream = stream
        self.continuation = continuation
        self.listener = EventForwarder { continuation.yield($0) }
    }

    /// Ends the stream.
    public func finish() { continuation.finish() }
}
