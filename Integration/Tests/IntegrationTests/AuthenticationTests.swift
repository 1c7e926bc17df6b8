import CourierAuthentication
import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// `AuthenticationInterceptor` against httpbin: `/basic-auth/ada/s3cret` accepts only that password, and the
/// refresh fetches the password over HTTP from httpbin's `/base64/…` (a real token endpoint, on the same transport).
@Suite("Authentication")
struct AuthenticationTests {
    struct Password: AuthenticationCredential {
        var value: String
        var expired = false
        var requiresRefresh: Bool { expired }
    }

    struct RefreshEndpointFailed: Error { var status: HTTPResponse.Status }

    final class PasswordService: Authenticator {
        let refreshes = Atomic<Int>(0)
        /// Where a fresh password is fetched: `/base64/czNjcmV0` answers "s3cret".
        let endpoint: String
        private let tokens = session()

        init(endpoint: String = "base64/\(Data("s3cret".utf8).base64EncodedString())") { self.endpoint = endpoint }

        func apply(_ credential: Password, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Basic " + Data("ada:\(credential.value)".utf8).base64EncodedString()
        }

        func refresh(_ credential: Password) async throws -> Password {
            refreshes.add(1, ordering: .relaxed)
            let response = try await tokens.data(.get, endpoint)
            guard response.status == .ok else { throw RefreshEndpointFailed(status: response.status) }
            return Password(value: response.text)
        }
    }

    /// A transport of the suite's own: a hundred calls at once must not queue the other suites' transfers.
    private static let transport: CurlTransport = {
        do { return try CurlTransport() } catch { fatalError("CurlTransport did not start: \(error)") }
    }()

    private func api(_ auth: AuthenticationInterceptor<PasswordService>, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        session(transport: Self.transport) { configuration in
            configuration.interceptors = [auth]
            configure(&configuration)
        }
    }

    private func calls(_ count: Int, through api: Session) async -> [Result<HTTPResponse.Status, CourierError>] {
        await withTaskGroup(of: Result<HTTPResponse.Status, CourierError>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do throws(CourierError) { return .success(try await api.data(.get, "basic-auth/ada/s3cret").status) }
                    catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func aHundredRefusedCallsShareOneRefresh() async throws {
        let service = PasswordService()
        let auth = AuthenticationInterceptor(authenticator: service, credential: Password(value: "wrong"))
        let results = await calls(100, through: api(auth))
        #expect(results.count == 100)
        #expect(results.allSatisfy { (try? $0.get()) == .ok })
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
        #expect(auth.credential?.value == "s3cret")
    }

    @Test func anExpiredCredentialIsRefreshedOnceBeforeAnyCallLeaves() async throws {
        let service = PasswordService()
        let auth = AuthenticationInterceptor(authenticator: service, credential: Password(value: "wrong", expired: true))
        let listener = RecordingStatuses()
        let results = await calls(50, through: api(auth) { $0.networkInterceptors = [listener] })
        #expect(results.allSatisfy { (try? $0.get()) == .ok })
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
        #expect(listener.statuses.value.allSatisfy { $0 == .ok })  // no call went out with the old one
    }

    @Test func aRefreshEndpointThatFailsFailsTheWaitingCallsTyped() async throws {
        let service = PasswordService(endpoint: "status/503")
        let auth = AuthenticationInterceptor(authenticator: service, credential: Password(value: "wrong", expired: true))
        let results = await calls(20, through: api(auth))
        for result in results {
            guard case .failure(let error) = result else { Issue.record("a call succeeded without a credential"); continue }
            #expect(error.kind == .authenticationFailed)
            let reason = error.underlyingError as? AuthenticationError
            #expect(reason?.code == .refreshFailed)
            #expect((reason?.underlyingError as? RefreshEndpointFailed)?.status == .serviceUnavailable)
        }
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
    }
}

/// A network interceptor that records the status of every exchange on the wire. Behind an `NSLock` (`Box`), not a
/// `Mutex`: ThreadSanitizer cannot see `Mutex`'s futex on Linux and reported the interceptor's appends from two
/// calls as a race (a clean-clone run at `e07f9f8`).
final class RecordingStatuses: Interceptor {
    let statuses = Box<[HTTPResponse.Status]>([])

    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        let response = try await next(request, body: body, context: context)
        statuses.update { $0.append(response.status) }
        return response
    }

    /// Credentials in the base URL (`http://ada:s3cret@127.0.0.1:…/`) open httpbin's `/basic-auth/ada/s3cret`, as curl's
    /// do; percent-encoded ones are decoded first. A redirect within the origin keeps them; one to another origin
    /// (`localhost` for `127.0.0.1`) does not send them.
    @Test func credentialsInTheURLAreSentAsBasic() async throws {
        func base(user: String?, password: String?, host: String = "127.0.0.1") throws -> String {
            var parts = try #require(URLComponents(string: Servers.httpbin))
            parts.percentEncodedUser = user
            parts.percentEncodedPassword = password
            parts.host = host
            return try #require(parts.string)
        }
        let ada = session(try base(user: "ada", password: "s3cret"))
        #expect(try await ada.data(.get, "basic-auth/ada/s3cret").status == .ok)
        let encoded = session(try base(user: "a%40da", password: "p%3Aw%20d"))
        #expect(try await encoded.data(.get, "basic-auth/a%40da/p%3Aw%20d").status == .ok)
        #expect(try await session(try base(user: "ada", password: "wrong")).data(.get, "basic-auth/ada/s3cret").status == .unauthorized)

        func echoedAuthorization(_ path: String) async throws -> String? {
            let response = try await ada.data(.get, path)
            return (try json(response)["headers"] as? [String: Any])?["Authorization"] as? String
        }
        let basic = "Basic " + Data("ada:s3cret".utf8).base64EncodedString()
        #expect(try await echoedAuthorization("redirect-to?url=/headers") == basic)
        let elsewhere = try base(user: nil, password: nil, host: "localhost")
        let target = (elsewhere.hasSuffix("/") ? elsewhere : elsewhere + "/") + "headers"
        let escaped = try #require(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        #expect(try await echoedAuthorization("redirect-to?url=\(escaped)") == nil, "the credentials went to another origin")
    }
}
