import CourierCore
import HTTPTypes

/// Sends a ``CookieJar``'s cookies with every exchange and stores the cookies every response sets.
///
/// Add it to the session's network interceptors, so it runs once for every exchange on the wire: a cookie set
/// by a redirect hop is stored, and sent to the next hop when it matches it (as browsers and curl do).
///
/// ```swift
/// let jar = CookieJar()
/// var configuration = SessionConfiguration(baseURL: URL(string: "https://shop.example"))
/// configuration.networkInterceptors = [CookieInterceptor(jar: jar)]
/// ```
/// A `Cookie` field the request already has is kept, and the jar's cookies follow it in the same field, as many
/// as fit in the jar's ``CookieJar/maximumHeaderLength`` with it.
public struct CookieInterceptor: Interceptor {
    /// Where cookies are kept.
    public let jar: CookieJar

    /// An interceptor for `jar`.
    public init(jar: CookieJar) {
        self.jar = jar
    }

    /// Adds the jar's cookies to `request`, sends it, and stores what the response sets.
    public func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        var request = request
        let own = request.headerFields[values: .cookie].joined(separator: "; ")
        if let cookies = jar.cookieHeader(for: request, after: own) {
            request.headerFields[.cookie] = cookies
        }
        let response = try await next(request, body: body, context: context)
        jar.store(setCookieFields: response.head.headerFields[values: .setCookie], for: request)
        return response
    }
}
