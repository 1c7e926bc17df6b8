import CourierCore
import FoundationEssentials
import HTTPTypes

/// An in-memory ``CourierCore/Transport`` you script: the `EmbeddedChannel` of Courier, for
/// testing interceptors, serializers, listeners and your own code without a network.
///
/// It behaves like a real transport: reports `requestSent`, upload progress while reading the
/// request body, the response head, download progress per chunk and metrics at the end; honours
/// suspend (no chunk is delivered while suspended), cancel, Swift task cancellation and the
/// request timeout.
///
/// ```swift
/// let transport = MockTransport { request in
///     request.path == "/missing" ? .status(.notFound) : .json(#"{"ok":true}"#)
/// }
/// let session = Session(transport: transport)
/// _ = try await session.data(for: HTTPRequest(method: .get, scheme: "https", authority: "x.test", path: "/"))
/// #expect(transport.requests.count == 1)
/// ```
public final class MockTransport: Transport {
    /// Answers one request.
    public typealias Responder = @Sendable (MockRequest) async throws -> MockResponse

    private let responder: Responder
    private let recorded = Locked<[MockRequest]>([])
    /// The largest request body the transport reads; a larger one fails with
    /// ``TransportError/Code/sendFailed``.
    public let maximumRequestBodySize: Int

    /// A transport answering with `responder`, reading request bodies up to
    /// `maximumRequestBodySize` bytes.
    public init(maximumRequestBodySize: Int = 64 * 1024 * 1024, _ responder: @escaping Responder) {
        self.maximumRequestBodySize = maximumRequestBodySize
        self.responder = responder
    }

    /// A transport answering every request with `response`.
    public convenience init(always response: MockResponse) {
        self.init { _ in response }
    }

    /// A transport answering requests with `responses` in order; once they run out it fails
    /// with ``TransportError/Code/other``.
    public convenience init(sequence responses: [MockResponse]) {
        let queue = Locked(responses[...])
        self.init { request in
            guard let next = queue.withLock({ $0.popFirst() }) else {
                throw TransportError(.other, message: "MockTransport ran out of scripted responses at \(request.method) \(request.path)")
            }
            return next
        }
    }

    /// A transport answering by route: keys are `"METHOD /path"` or `"/path"` (any method),
    /// matched against the path without its query; anything else gets 404.
    public convenience init(routes: [String: MockResponse]) {
        self.init { request in
            routes["\(request.method) \(request.pathWithoutQuery)"]
                ?? routes[request.pathWithoutQuery]
                ?? .status(.notFound)
        }
    }

    /// Every request received so far, in order.
    public var requests: [MockRequest] { recorded.withLock { $0 } }

    /// Forgets the recorded requests.
    public func clearRequests() { recorded.withLock { $0.removeAll() } }

    public func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        let control = context.control
        try await control.waitUntilRunning()
        context.requestSent(request)
        let bytes = try await readBody(body, context: context)
        let received = MockRequest(head: request, body: bytes)
        recorded.withLock { $0.append(received) }
        let script = try await responder(received)
        // Nothing moves during the scripted delay, so both the total and the idle limit apply.
        let limits = [context.timeouts.request, context.timeouts.lowSpeedTime].compactMap { $0 }
        try await wait(script.delay, timeout: limits.min(), control: control)
        if let failure = script.failure { throw failure }
        try await control.waitUntilRunning()

        var head = HTTPResponse(status: script.status, headerFields: script.headerFields)
        let total = script.chunks.reduce(0) { $0 + $1.count }
        if head.headerFields[.contentLength] == nil, script.bodyFailure == nil, case .bytes = script.body {
            head.headerFields[.contentLength] = String(total)
        }
        context.responseHeadReceived(head)
        let metrics = script.metrics ?? TransferMetrics(
            total: script.delay, bytesSent: Int64(bytes?.count ?? 0), bytesReceived: Int64(total),
            httpVersion: "HTTP/1.1", remoteAddress: "mock", reusedConnection: false
        )
        let stream = MockBodySequence(
            chunks: script.chunks, interval: script.interval, failure: script.bodyFailure,
            total: head.headerFields[.contentLength].flatMap { Int64($0) },
            metrics: metrics, context: context
        )
        let length: Body.Length = script.bodyFailure == nil ? .known(Int64(total)) : .unknown
        return Response(head: head, body: Body(stream, length: length, iterationBehavior: .single), request: request)
    }

    private func readBody(_ body: Body?, context: RequestContext) async throws -> Data? {
        guard let body else { return nil }
        var data = Data()
        let total: Int64? = if case .known(let count) = body.length { count } else { nil }
        for try await chunk in body {
            try await context.control.waitUntilRunning()
            guard data.count + chunk.count <= maximumRequestBodySize else {
                throw TransportError(.sendFailed, message: "request body larger than MockTransport's limit")
            }
            data.append(contentsOf: chunk)
            context.uploadProgress(TransferProgress(completed: Int64(data.count), total: total))
        }
        return data
    }

    private func wait(_ delay: Duration, timeout: Duration?, control: TransferControl) async throws {
        guard delay > .zero else { return }
        if let timeout, delay >= timeout {
            try await control.sleep(for: timeout)
            throw TransportError(.timedOut, message: "no response within \(timeout)")
        }
        try await control.sleep(for: delay)
    }
}

/// The scripted response body: waits while suspended, reports progress, reports metrics at the end.
struct MockBodySequence: AsyncSequence, Sendable {
    let chunks: [Data]
    let interval: Duration
    let failure: (any Error)?
    let total: Int64?
    let metrics: TransferMetrics
    let context: RequestContext

    func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    struct Iterator: AsyncIteratorProtocol {
        let sequence: MockBodySequence
        var index = 0
        var delivered: Int64 = 0
        var ended = false

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !ended else { return nil }
            let control = sequence.context.control
            guard index < sequence.chunks.count else {
                ended = true
                if let failure = sequence.failure { throw failure }
                sequence.context.metricsCollected(sequence.metrics)
                return nil
            }
            if index > 0, sequence.interval > .zero {
                try await control.sleep(for: sequence.interval)
            }
            try await control.waitUntilRunning()
            try Task.checkCancellation()
            let chunk = sequence.chunks[index]
            index += 1
            delivered += Int64(chunk.count)
            sequence.context.downloadProgress(TransferProgress(completed: delivered, total: sequence.total))
            return ArraySlice(chunk)
        }
    }
}
