import CourierCore
import HTTPTypes

extension Session {
    /// The server-sent events of `GET path` (resolved against the base URL, with the session's
    /// headers), reconnecting as a browser's `EventSource` does; see ``EventSource``.
    ///
    /// ```swift
    /// for try await event in api.events("notifications") {
    ///     print(event.type, event.data)
    /// }
    /// ```
    public func events(
        _ path: String,
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        configuration: EventSourceConfiguration = EventSourceConfiguration()
    ) throws(CourierError) -> EventSource {
        EventSource(session: self, request: try makeRequest(.get, path, headers: headers), options: options, configuration: configuration)
    }

    /// The server-sent events of `request`, as built; see ``EventSource``.
    public func events(
        for request: HTTPRequest,
        options: RequestOptions = .default,
        configuration: EventSourceConfiguration = EventSourceConfiguration()
    ) -> EventSource {
        EventSource(session: self, request: request, options: options, configuration: configuration)
    }
}

/// A `text/event-stream` read as an `AsyncSequence` of ``ServerSentEvent``, reconnecting by the
/// WHATWG EventSource rules: in the iterating task, with no task of its own.
///
/// Each connection sends `Accept: text/event-stream`, `Cache-Control: no-cache` and, once the stream
/// has set an ID, `Last-Event-ID`. A `200` with `text/event-stream` is read event by event; a `204`
/// ends the sequence (the server's "do not reconnect"); any other status or content type ends it with
/// ``StreamError/Code/notAnEventStream``. When the connection is refused, cut or timed out, or the
/// stream ends, it waits the reconnection time (the server's `retry:`, else the configuration's) and
/// connects again, giving up after ``EventSourceConfiguration/maximumConsecutiveFailures`` failures in a
/// row without an event. Cancelling the iterating task ends it with a cancellation error. Lines and
/// events are bounded (``EventSourceConfiguration``), so memory stays constant whatever the server sends.
///
/// The session's timeouts apply to each connection: a stream that stays quiet longer than the
/// transport's idle limit (60 s by default) is cut and reconnected. Servers send comments (`: ping`) to
/// keep a quiet stream alive; give `options` a longer limit for one that does not.
public struct EventSource: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = ServerSentEvent

    let session: Session
    let request: HTTPRequest
    let options: RequestOptions
    let configuration: EventSourceConfiguration

    /// Starts the first connection on the first `next()`.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self)
    }

    /// Reads events in the caller's task.
    public struct Iterator: AsyncIteratorProtocol {
        private let source: EventSource
        private var parser: EventStreamParser
        private var body: Body.Iterator?
        private var ready = Batch<ServerSentEvent>()
        private var connections = 0
        private var failures = 0
        private var deliveredOnThisConnection = false
        private var finished = false

        init(source: EventSource) {
            self.source = source
            parser = EventStreamParser(
                maximumLineLength: source.configuration.maximumLineLength,
                maximumEventSize: source.configuration.maximumEventSize
            )
        }

        /// The last event ID the stream has set (sent as `Last-Event-ID` on reconnection).
        public var lastEventID: String { parser.lastEventID }

        /// The next event, or `nil` once the server has said not to reconnect (`204`). Throws a
        /// ``CourierError``.
        public mutating func next() async throws -> ServerSentEvent? {
            while true {
                if let event = ready.next() { return event }
                if finished { return nil }
                guard body != nil else {
                    try await connect()
                    continue
                }
                try await read()
            }
        }

        /// Opens a connection, after the reconnection time unless it is the first.
        private mutating func connect() async throws {
            if connections > 0 {
                do {
                    try await Task.sleep(for: parser.reconnectionTime ?? source.configuration.reconnectionTime)
                } catch {
                    throw fail(CourierError(stage: .session, request: source.request, underlyingError: error))
                }
            }
            connections += 1
            deliveredOnThisConnection = false
            let response: Response
            do throws(CourierError) {
                response = try await source.session.send(request(), options: source.options)
            } catch {
                try failed(error)
                return
            }
            switch response.status {
            case .noContent:
                finished = true
            case .ok where isEventStream(response.head):
                parser.startStream()
                body = response.body.makeAsyncIterator()
            default:
                throw fail(CourierError(
                    stage: .responseBody, request: source.request, response: response.head,
                    underlyingError: StreamError(.notAnEventStream, response: response.head)
                ))
            }
        }

        /// Reads one chunk of the open stream.
        private mutating func read() async throws {
            let chunk: ArraySlice<UInt8>?
            do {
                chunk = try await body?.next()
            } catch {
                body = nil
                try failed(CourierError.wrapping(error, stage: .responseBody, request: source.request))
                return
            }
            guard let chunk else {
                // The stream ended: browsers reconnect, and so does this, after the wait.
                body = nil
                try failed(CourierError(stage: .responseBody, request: source.request, underlyingError: StreamError(.streamEnded)))
                return
            }
            var events: [ServerSentEvent] = []
            do throws(StreamError) {
                try parser.append(chunk) { events.append($0) }
            } catch {
                body = nil
                throw fail(CourierError(stage: .responseBody, request: source.request, underlyingError: error))
            }
            if !events.isEmpty {
                failures = 0
                deliveredOnThisConnection = true
                ready.refill(events)
            }
        }

        /// A connection failed or ended: another is tried when the failure is one a reconnection
        /// may mend and the budget allows; otherwise the sequence ends with it.
        private mutating func failed(_ error: CourierError) throws {
            if error.isCancellation { throw fail(error) }
            let mendable: Set<CourierError.Kind> = [.connectionFailed, .timedOut, .malformedResponse]
            let ended = (error.underlyingError as? StreamError)?.code == .streamEnded
            guard mendable.contains(error.kind) || ended else { throw fail(error) }
            if !deliveredOnThisConnection { failures += 1 }
            if let limit = source.configuration.maximumConsecutiveFailures, failures >= limit {
                throw fail(CourierError(
                    stage: .responseBody, request: source.request,
                    underlyingError: StreamError(.tooManyFailures, limit: limit, underlyingError: error)
                ))
            }
        }

        private mutating func fail(_ error: CourierError) -> CourierError {
            finished = true
            body = nil
            return error
        }

        private func request() -> HTTPRequest {
            var request = source.request
            if request.headerFields[.accept] == nil { request.headerFields[.accept] = "text/event-stream" }
            request.headerFields[.cacheControl] = "no-cache"
            if !parser.lastEventID.isEmpty { request.headerFields[lastEventIDField] = parser.lastEventID }
            return request
        }

        private func isEventStream(_ head: HTTPResponse) -> Bool {
            guard let type = head.headerFields[.contentType] else { return false }
            return type.prefix { $0 != ";" }.trimmingOptionalWhitespace().lowercased() == "text/event-stream"
        }
    }
}

private let lastEventIDField = HTTPField.Name("Last-Event-ID")!
