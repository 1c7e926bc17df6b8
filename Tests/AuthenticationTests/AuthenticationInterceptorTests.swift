import CourierAuthentication
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Synchronization
import Testing

/// `AuthenticationInterceptor` in a session over `MockTransport`, and alone with a closure for `next`.
@Suite struct AuthenticationInterceptorTests {
    struct Token: AuthenticationCredential {
        var value: String
        var expired = false
        var requiresRefresh: Bool { expired }
    }

    struct RefreshRefused: Error {}

    /// Issues `t1`, `t2`, … and counts the refreshes; waits for `gate` (when given) before each answer.
    final class TokenService: Authenticator {
        let refreshes = Atomic<Int>(0)
        let delay: Duration
        let fails: Bool
        let gate: AsyncStream<Void>?

        init(delay: Duration = .milliseconds(20), fails: Bool = false, gate: AsyncStream<Void>? = nil) {
            self.delay = delay
            self.fails = fails
            self.gate = gate
        }

        func apply(_ credential: Token, to request: inout HTTPRequest) {
            request.headerFields[.authorization] = "Bearer \(credential.value)"
        }

        func refresh(_ credential: Token) async throws -> Token {
            let number = refreshes.add(1, ordering: .relaxed).newValue
            if let gate { for await _ in gate { break } } else { try await Task.sleep(for: delay) }
            if fails { throw RefreshRefused() }
            return Token(value: "t\(number)")
        }
    }

    /// A server that accepts only the tokens in `valid`, answering the rest `401` after `delay`.
    private func server(accepting valid: Set<String>, delay: Duration = .milliseconds(10)) -> MockTransport {
        MockTransport { request in
            let token = request.head.headerFields[.authorization]?.replacing("Bearer ", with: "") ?? ""
            guard valid.contains(token) else {
                try await Task.sleep(for: delay)
                return .status(.unauthorized)
            }
            return .json(#"{"token":"\#(token)"}"#)
        }
    }

    private func session(_ transport: MockTransport, _ interceptor: some Interceptor) -> Session {
        Session(configuration: SessionConfiguration(interceptors: [interceptor]), transport: transport)
    }

    private let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/me")

    @Test func oneRefreshForAHundredCallsThatMeetAnExpiredToken() async throws {
        let service = TokenService()
        let auth = AuthenticationInterceptor(authenticator: service, credential: Token(value: "t0", expired: true))
        let transport = server(accepting: ["t1"])
        let api = session(transport, auth)
        let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
            for _ in 0..<100 { group.addTask { [request] in try await api.data(for: request).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.count == 100 && statuses.allSatisfy { $0 == .ok })
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
        #expect(transport.requests.allSatisfy { $0.head.headerFields[.authorization] == "Bearer t1" })
        #expect(auth.credential?.value == "t1")
    }

    @Test func oneRefreshForAHundredCallsTheServerRefuses() async throws {
        let service = TokenService()
        let auth = AuthenticationInterceptor(authenticator: service, credential: Token(value: "revoked"))
        let transport = server(accepting: ["t1"])
        let api = session(transport, auth)
        let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
            for _ in 0..<100 { group.addTask { [request] in try await api.data(for: request).status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == .ok } && statuses.count == 100)
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
        // Each call went out at most twice: once with the revoked token, once with the new one.
        #expect(transport.requests.count <= 200)
        #expect(transport.requests.filter { $0.head.headerFields[.authorization] == "Bearer t1" }.count == 100)
    }

    @Test func aFailedRefreshFailsEveryWaitingCallTyped() async throws {
        let service = TokenService(fails: true)
        let auth = AuthenticationInterceptor(authenticator: service, credential: Token(value: "t0", expired: true))
        let transport = server(accepting: ["t1"])
        let api = session(transport, auth)
        let errors = await withTaskGroup(of: CourierError?.self) { group in
            for _ in 0..<20 {
                group.addTask { [request] in
                    do { _ = try await api.data(for: request); return nil } catch { return error as? CourierError }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors.count == 20)
        for error in errors {
            #expect(error?.kind == .authenticationFailed)
            let reason = error?.underlyingError as? AuthenticationError
            #expect(reason?.code == .refreshFailed && reason?.underlyingError is RefreshRefused)
        }
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
        #expect(transport.requests.isEmpty)
    }

    @Test func aServerThatRefusesEveryTokenCannotCauseARefreshLoop() async throws {
        let service = TokenService(delay: .zero)
        let auth = AuthenticationInterceptor(
            authenticator: service, credential: Token(value: "t0"),
            refreshWindow: RefreshWindow(interval: .seconds(3600), maximumRefreshes: 2)
        )
        let api = session(server(accepting: [], delay: .zero), auth)
        // Each call refreshes once and resends once; the refusal of the fresh token is its answer.
        #expect(try await api.data(for: request).status == .unauthorized)
        #expect(try await api.data(for: request).status == .unauthorized)
        let error = await #expect(throws: CourierError.self) { try await api.data(for: request) }
        #expect((error?.underlyingError as? AuthenticationError)?.code == .excessiveRefresh)
        #expect(error?.kind == .authenticationFailed)
        #expect(service.refreshes.load(ordering: .relaxed) == 2)
    }

    @Test func aBodyReadableOnceIsNotSentAgain() async throws {
        let service = TokenService()
        let auth = AuthenticationInterceptor(authenticator: service, credential: Token(value: "revoked"))
        let transport = server(accepting: ["t1"], delay: .zero)
        let api = session(transport, auth)
        let (body, writer) = Body.makeStream()
        writer.yield(Data("once".utf8))
        writer.finish()
        var post = request
        post.method = .post
        let response = try await api.send(post, body: body)
        #expect(response.status == .unauthorized)
        #expect(transport.requests.count == 1)
        #expect(service.refreshes.load(ordering: .relaxed) == 0)
    }

    @Test func aCancelledWaiterStopsWaitingAndTheRefreshGoesOnForTheOthers() async throws {
        let (gate, open) = AsyncStream<Void>.makeStream()
        let service = TokenService(gate: gate)
        let auth = AuthenticationInterceptor(authenticator: service, credential: Token(value: "t0", expired: true))
        let api = session(server(accepting: ["t1"]), auth)
        let first = Task { [request] in try await api.data(for: request).status }
        let second = Task { [request] in try await api.data(for: request).status }
        while service.refreshes.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
        second.cancel()
        let error = await #expect(throws: CourierError.self) { try await second.value }
        #expect(error?.kind == .cancelled)
        open.yield()
        #expect(try await first.value == .ok)
        #expect(service.refreshes.load(ordering: .relaxed) == 1)
    }

    @Test func signingOutFailsLaterCallsAndSigningInRecovers() async throws {
        let auth = AuthenticationInterceptor(authenticator: TokenService(), credential: Token(value: "t1"))
        let api = session(server(accepting: ["t1", "fresh"]), auth)
        #expect(try await api.data(for: request).status == .ok)
        auth.setCredential(nil)
        let error = await #expect(throws: CourierError.self) { try await api.data(for: request) }
        #expect((error?.underlyingError as? AuthenticationError)?.code == .missingCredential)
        auth.setCredential(Token(value: "fresh"))
        #expect(try await api.data(for: request).status == .ok)
    }

    /// The interceptor alone: `next` is a closure playing a server that wants `t1`.
    @Test func aloneWithAClosureForNext() async throws {
        let auth = AuthenticationInterceptor(authenticator: TokenService(delay: .zero), credential: Token(value: "t0"))
        let seen = Seen()
        let next = InterceptorNext { request, _, _ in
            let authorization = request.headerFields[.authorization] ?? ""
            seen.values.withLock { $0.append(authorization) }
            return Response(head: HTTPResponse(status: authorization == "Bearer t1" ? .ok : .unauthorized), request: request)
        }
        let response = try await auth.intercept(request, body: nil, context: RequestContext(request: request), next: next)
        #expect(response.status == .ok)
        #expect(seen.values.withLock { $0 } == ["Bearer t0", "Bearer t1"])
    }

    /// What the closure saw, behind Core's `Locked` (a pthread mutex ThreadSanitizer sees; it cannot see `Mutex`'s
    /// futex on Linux). A class: a `Mutex` captured straight from a local crashed Swift 6.3's compiler.
    final class Seen: Sendable {
        let values = Locked<[String]>([])
    }
}
