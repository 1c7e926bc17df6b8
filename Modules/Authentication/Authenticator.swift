import CourierCore
import HTTPTypes

/// A credential an ``Authenticator`` applies and refreshes: a token pair, a signed key, a session.
///
/// ```swift
/// struct OAuthCredential: AuthenticationCredential {
///     var accessToken: String
///     var refreshToken: String
///     var expiration: ContinuousClock.Instant
///     // Refresh five minutes early, so no request leaves with a token about to expire.
///     var requiresRefresh: Bool { ContinuousClock.now + .seconds(300) > expiration }
/// }
/// ```
public protocol AuthenticationCredential: Sendable {
    /// True when the credential must be refreshed before its next use (it has expired, or soon will).
    var requiresRefresh: Bool { get }
}

/// How one kind of credential is put on a request and renewed: the part of authentication that
/// knows your API. ``AuthenticationInterceptor`` does the rest: it refreshes before expiry and after
/// a rejection, once for every call waiting at that moment, and retries the rejected call.
///
/// ## Choose between an authenticator and an interceptor
/// Implement `Authenticator` when a credential expires and is renewed by a call of its own (OAuth
/// access tokens, signed session keys): the interceptor serializes the refreshes. For a fixed key or
/// token, an ``Interceptor`` of ten lines that sets the header is all you need (see its example).
///
/// ```swift
/// struct OAuthAuthenticator: Authenticator {
///     let tokens: TokenEndpoint   // your own client for the token endpoint
///     func apply(_ credential: OAuthCredential, to request: inout HTTPRequest) {
///         request.headerFields[.authorization] = "Bearer \(credential.accessToken)"
///     }
///     func refresh(_ credential: OAuthCredential) async throws -> OAuthCredential {
///         try await tokens.renew(credential.refreshToken)
///     }
/// }
/// configuration.interceptors = [AuthenticationInterceptor(authenticator: OAuthAuthenticator(tokens: tokens), credential: saved)]
/// ```
public protocol Authenticator: Sendable {
    /// The credential this authenticator applies.
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request` (a header, a query item, a signature).
    func apply(_ credential: Credential, to request: inout HTTPRequest)

    /// A fresh credential in place of `credential`. Called once for all the calls waiting at that
    /// moment; an error fails each of them with ``AuthenticationError/Code/refreshFailed``. The call
    /// runs outside the session's chain, so a refresh through the same session is not intercepted.
    func refresh(_ credential: Credential) async throws -> Credential

    /// True when `response` refused the credential `request` carried, so a refresh may help.
    /// The default is a `401 Unauthorized`; an API that answers `403` or puts the reason in a header
    /// says so here.
    func didRequest(_ request: HTTPRequest, failWithAuthenticationError response: HTTPResponse) -> Bool
}

extension Authenticator {
    /// A `401 Unauthorized`.
    public func didRequest(_ request: HTTPRequest, failWithAuthenticationError response: HTTPResponse) -> Bool {
        response.status == .unauthorized
    }
}
