import HTTPTypes

/// Performs exactly one network exchange: sends a request and returns the response head with a
/// streaming body. No retries, no redirects: the session's chain does those.
///
/// ## Choose between a transport and an interceptor
/// Implement `Transport` to put bytes on a wire (or to answer from memory, as
/// `CourierTesting.MockTransport` does). Implement ``Interceptor`` to change requests or
/// responses on their way through; an interceptor can short-circuit too, but it runs in front of
/// the redirect and retry stages only if you place it there.
///
/// ## What a transport must honour
/// - `context.control`: stop reading and writing while it is `.suspended`, abort promptly when it
///   becomes `.cancelled` (``TransferControl/observe(_:)`` or ``TransferControl/waitUntilRunning()``).
/// - Swift task cancellation: abort and throw `CancellationError`.
/// - `context.timeouts`: fail with ``TransportError/Code/timedOut``.
/// - Report what happens through the context: ``RequestContext/requestSent(_:)``,
///   ``RequestContext/responseHeadReceived(_:)``, progress and ``RequestContext/metricsCollected(_:)``.
/// - Evaluate `context.trustEvaluator` during the TLS handshake, or fail closed if it cannot.
/// - Throw ``TransportError`` for network failures.
///
/// ## A complete transport in ten lines
/// ```swift
/// struct EchoTransport: Transport {
///     func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
///         context.requestSent(request)
///         let bytes = try await body?.collect(upTo: 1 << 20) ?? Data()
///         let head = HTTPResponse(status: .ok, headerFields: [.contentType: "application/octet-stream"])
///         context.responseHeadReceived(head)
///         return Response(head: head, body: Body(bytes))
///     }
/// }
/// let session = Session(transport: EchoTransport())
/// ```
public protocol Transport: Sendable {
    /// Sends one request and returns as soon as the response head is known; the body streams.
    ///
    /// - Parameters:
    ///   - request: The request, complete with scheme, authority and path.
    ///   - body: The request body, or `nil` for none.
    ///   - context: The task this exchange belongs to: its controls, timeouts, trust evaluator and
    ///     event reporting.
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response
}
