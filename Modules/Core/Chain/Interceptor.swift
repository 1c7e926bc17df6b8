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
/// ## A complete interceptor
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
public struct InterceptorNext: Sendable {
    let chain: InterceptorChain
    let index: Int

    /// Sends `request` through the remaining stages and returns their response.
    public func callAsFunction(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext
    ) async throws -> Response {
        try await chain.run(from: index, request, body: body, context: context)
    }
}
