import HTTPTypes

/// Middleware in a session's chain: sees every request on its way out and every response on
/// its way back.
///
/// An interceptor may rewrite the request, call `next` zero times (answer from a cache, fail
/// early), once, or several times (retry), and rewrite the response. A session runs its chain
/// in this order, fixed once when the session is made:
///
/// ```text
/// application interceptors → retry stage → redirect stage → network interceptors → transport
/// ```
/// Application interceptors run once per call and see the final response after redirects and
/// retries; network interceptors run once per exchange on the wire, redirect hops included
/// (okhttp's split). Interceptors run in the order given on the way out, reversed on the way back.
///
/// ## Choose between an interceptor and a transport
/// Implement `Interceptor` to add behaviour around exchanges (authentication, logging, caching,
/// metrics). Implement ``Transport`` to carry the exchange itself.
///
/// ## A complete interceptor, and its unit test
/// ```swift
/// struct BearerToken: Interceptor {
///     let token: String
///     func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext,
///                    next: InterceptorNext) async throws -> Response {
///         var request = request
///         request.headerFields[.authorization] = "Bearer \(token)"
///         return try await next(request, body: body, context: context)
///     }
/// }
///
/// // No session, no transport: `next` is a closure, the context stands alone.
/// @Test func addsTheToken() async throws {
///     let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/me")
///     let next = InterceptorNext { request, _, _ in
///         #expect(request.headerFields[.authorization] == "Bearer t0k3n")
///         return Response(head: HTTPResponse(status: .ok), request: request)
///     }
///     let response = try await BearerToken(token: "t0k3n")
///         .intercept(request, body: nil, context: RequestContext(request: request), next: next)
///     #expect(response.head.status == .ok)
/// }
/// ```
/// Errors thrown here reach the caller as a ``CourierError`` whose stage names this type.
public protocol Interceptor: Sendable {
    /// Handles one request; call `next` to pass it down the chain.
    func intercept(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response
}

/// The rest of the chain below an interceptor. Call it like a function.
///
/// A session makes one for each interceptor it runs. To test an interceptor alone, make one from
/// a closure that plays the rest of the chain: it can check the request it is handed, answer,
/// fail, or count how many times it is called (a retrying interceptor calls it more than once).
public struct InterceptorNext: Sendable {
    /// A stage of a session's chain, or a closure standing in for one.
    private enum Target: Sendable {
        case chain(InterceptorChain, index: Int)
        case closure(@Sendable (HTTPRequest, Body?, RequestContext) async throws -> Response)
    }

    private let target: Target

    init(chain: InterceptorChain, index: Int) {
        target = .chain(chain, index: index)
    }

    /// The rest of the chain played by `send`, for unit tests of an interceptor (see the example
    /// on ``Interceptor``): `send` receives what the interceptor passes down and returns the
    /// response it should see, or throws.
    public init(_ send: @escaping @Sendable (_ request: HTTPRequest, _ body: Body?, _ context: RequestContext) async throws -> Response) {
        target = .closure(send)
    }

    /// Sends `request` through the remaining stages and returns their response. Runs on the caller's
    /// executor (the stages below choose their own): calling the rest of the chain costs no executor switch.
    nonisolated(nonsending) public func callAsFunction(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext
    ) async throws -> Response {
        switch target {
        case .chain(let chain, let index): try await chain.run(from: index, request, body: body, context: context)
        case .closure(let send): try await send(request, body, context)
        }
    }
}
