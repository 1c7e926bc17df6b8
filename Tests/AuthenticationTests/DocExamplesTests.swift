import CourierAuthentication
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Synchronization
import Testing

// docs/authentication.md's examples, verbatim (Scripts/lib/check-doc-examples.py checks that each appears here),
// run against a MockTransport that plays the API and a token endpoint that counts its calls.

/// Plays the guide's token endpoint: hands out `token-1`, `token-2`, …
final class TokenEndpoint: Sendable {
    let calls = Atomic<Int>(0)
    func newToken() async throws -> String { "token-\(calls.add(1, ordering: .relaxed).newValue)" }
}

struct AccessToken: AuthenticationCredential {
    var value: String
    var expiration: ContinuousClock.Instant
    // Renew a minute early, so no call leaves with a token about to expire.
    var requiresRefresh: Bool { ContinuousClock.now + .seconds(60) > expiration }
}

struct TokenAuthenticator: Authenticator {
    let endpoint: TokenEndpoint   // your client for the token endpoint
    func apply(_ credential: AccessToken, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = "Bearer \(credential.value)"
    }
    func refresh(_ credential: AccessToken) async throws -> AccessToken {
        AccessToken(value: try await endpoint.newToken(), expiration: .now + .seconds(3600))
    }
}

struct ForbiddenMeansExpired: Authenticator {
    func apply(_ credential: AccessToken, to request: inout HTTPRequest) {
        request.headerFields[.authorization] = "Bearer \(credential.value)"
    }
    func refresh(_ credential: AccessToken) async throws -> AccessToken { credential }
    func didRequest(_ request: HTTPRequest, failWithAuthenticationError response: HTTPResponse) -> Bool {
        response.status == .unauthorized || response.status == .forbidden
    }
}

@Suite struct DocExamplesTests {
    /// The API: `/v1/me` for `token-1` only.
    private let transport = MockTransport { request in
        request.head.headerFields[.authorization] == "Bearer token-1" ? .json(#"{"name":"Ada"}"#) : .status(.unauthorized)
    }

    @Test func theSessionRefreshesTheSavedTokenItRefuses() async throws {
        let endpoint = TokenEndpoint()
        let transport = self.transport
        let authentication = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(endpoint: endpoint),
            credential: AccessToken(value: "saved", expiration: .now + .seconds(600))
        )
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.interceptors = [authentication]
        let api = Session(configuration: configuration, transport: transport)
        let me = try await api.data(.get, "me")

        #expect(me.status == .ok && me.text == #"{"name":"Ada"}"#)
        #expect(transport.requests.map { $0.head.headerFields[.authorization] } == ["Bearer saved", "Bearer token-1"])
        #expect(endpoint.calls.load(ordering: .relaxed) == 1)
    }

    @Test func anExpiringTokenIsRenewedBeforeTheCall() async throws {
        let endpoint = TokenEndpoint()
        let authentication = AuthenticationInterceptor(
            authenticator: TokenAuthenticator(endpoint: endpoint),
            credential: AccessToken(value: "saved", expiration: .now + .seconds(30))   // inside the minute
        )
        let api = Session(configuration: SessionConfiguration(interceptors: [authentication]), transport: transport)
        #expect(try await api.data(for: HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/v1/me")).status == .ok)
        #expect(transport.requests.map { $0.head.headerFields[.authorization] } == ["Bearer token-1"])
    }

    @Test func aCallerSignsOutWhenRenewingFails() async throws {
        struct Unrenewable: Authenticator {
            func apply(_ credential: AccessToken, to request: inout HTTPRequest) {}
            func refresh(_ credential: AccessToken) async throws -> AccessToken { throw CancellationError() }
        }
        let authentication = AuthenticationInterceptor(
            authenticator: Unrenewable(), credential: AccessToken(value: "old", expiration: .now)
        )
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.interceptors = [authentication]
        let api = Session(configuration: configuration, transport: transport)

        do {
            _ = try await api.data(.get, "me")
        } catch {
            guard error.kind == .authenticationFailed else { throw error }
            // Sign in again: the stored credential cannot be renewed.
            authentication.setCredential(nil)
        }

        #expect(authentication.credential == nil)
    }

    @Test func aForbiddenAnswerCanMeanExpired() async throws {
        let authenticator = ForbiddenMeansExpired()
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/")
        #expect(authenticator.didRequest(request, failWithAuthenticationError: HTTPResponse(status: .forbidden)))
        #expect(!authenticator.didRequest(request, failWithAuthenticationError: HTTPResponse(status: .notFound)))
        // The default, for comparison: a 401 only.
        #expect(!TokenAuthenticator(endpoint: TokenEndpoint()).didRequest(request, failWithAuthenticationError: HTTPResponse(status: .forbidden)))
    }
}
