import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Authentication challenges")
struct ChallengeInterceptorTests {
    /// 401 with a Basic challenge unless the request carries `user:passwd`.
    let transport = MockTransport { request in
        if request.head.headerFields[.authorization] == "Basic dXNlcjpwYXNzd2Q=" { return .text("welcome") }
        return MockResponse(status: .unauthorized, headerFields: [.wwwAuthenticate: #"Basic realm="Fake Realm", charset="UTF-8""#])
    }

    func session(_ handler: @escaping ChallengeInterceptor.Handler) -> Session {
        Session(configuration: SessionConfiguration(interceptors: [ChallengeInterceptor(handler: handler)]), transport: transport)
    }

    @Test func credentialAnswersTheChallenge() async throws {
        let seen = Box<[AuthenticationChallenge]>([])
        let response = try await session { challenge in
            seen.update { $0.append(challenge) }
            return .useCredential(user: "user", password: "passwd")
        }.data(for: mockRequest())
        #expect(response.text == "welcome")
        #expect(seen.value.map(\.scheme) == ["Basic"])
        #expect(seen.value.first?.realm == "Fake Realm")
        #expect(seen.value.first?.previousFailureCount == 0)
    }

    @Test func defaultHandlingKeepsThe401() async throws {
        let response = try await session { _ in .performDefaultHandling }.data(for: mockRequest())
        #expect(response.status == .unauthorized)
        #expect(transport.requests.count == 1)
    }

    @Test func failingEndsTheCallWithTheHandlersError() async throws {
        struct Denied: Error {}
        await #expect {
            _ = try await session { _ in .fail(Denied()) }.data(for: mockRequest())
        } throws: { error in
            let error = error as? CourierError
            return error?.underlyingError is Denied && error?.stage.name.contains("ChallengeInterceptor") == true
        }
    }

    @Test func wrongPasswordStopsAfterTheAttemptLimit() async throws {
        let counter = Box(0)
        let response = try await session { challenge in
            counter.update { $0 += 1 }
            return .useCredential(user: "user", password: "wrong-\(challenge.previousFailureCount)")
        }.data(for: mockRequest())
        #expect(response.status == .unauthorized)
        #expect(counter.value == 3)
    }

    @Test func realmParsingHandlesQuotesAndCase() {
        #expect(AuthenticationChallenge.parameter("realm", in: #" Realm="a b", nonce=x"#) == "a b")
        #expect(AuthenticationChallenge.parameter("nonce", in: #" realm="a", nonce=xyz"#) == "xyz")
        #expect(AuthenticationChallenge.parameter("realm", in: " nonce=1") == nil)
    }
}
