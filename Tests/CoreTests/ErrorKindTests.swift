import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// `CourierError.kind` and its accessors answer the common questions without a cast (issue 13, part 4).
@Suite struct ErrorKindTests {
    private let request = HTTPRequest(method: .get, scheme: "http", authority: "mock.test", path: "/")

    private func kind(of error: any Error, stage: CourierError.Stage = .transport) -> CourierError.Kind {
        CourierError(stage: stage, request: request, underlyingError: error).kind
    }

    @Test func transportCodes() {
        let expected: [(TransportError.Code, CourierError.Kind)] = [
            (.timedOut, .timedOut), (.nameResolution, .connectionFailed), (.cannotConnect, .connectionFailed),
            (.connectionLost, .connectionFailed), (.sendFailed, .connectionFailed), (.receiveFailed, .connectionFailed),
            (.tlsFailure, .trustFailed), (.malformedResponse, .malformedResponse), (.truncatedBody, .malformedResponse),
            (.decodingFailed, .malformedResponse), (.decompressionLimitExceeded, .tooLarge), (.shutDown, .cancelled),
            (.unsupported, .other), (.other, .other),
        ]
        for (code, kind) in expected {
            #expect(self.kind(of: TransportError(code, message: "m")) == kind, "\(code)")
        }
    }

    @Test func coreErrors() {
        #expect(kind(of: CancellationError()) == .cancelled)
        #expect(kind(of: TrustError(host: "h", reason: "untrusted")) == .trustFailed)
        #expect(kind(of: RedirectError(reason: .tooManyRedirects, history: [], limit: 5)) == .redirectFailed)
        #expect(kind(of: BodyError.tooLarge(limit: 10)) == .tooLarge)
        #expect(kind(of: BodyError.notReplayable) == .other)
        #expect(kind(of: InvalidRequestError(.malformedURL, input: "ht tp://")) == .invalidRequest)
        #expect(kind(of: SessionError.invalidated, stage: .session) == .cancelled)
        struct Unknown: Error {}
        #expect(kind(of: Unknown(), stage: .requestSerialization) == .invalidRequest)
        #expect(kind(of: Unknown(), stage: .responseSerialization) == .serializationFailed)
        #expect(kind(of: Unknown(), stage: .interceptor(Unknown.self)) == .other)
    }

    @Test func anErrorOfYourOwnSaysItsKind() {
        struct RateLimited: CourierErrorKindProviding { var courierErrorKind: CourierError.Kind { CourierError.Kind("rate limited") } }
        #expect(kind(of: RateLimited()) == CourierError.Kind("rate limited"))
        #expect(kind(of: RateLimited()).description == "rate limited")
    }

    @Test func accessors() {
        let timeout = CourierError(stage: .transport, underlyingError: TransportError(.timedOut, message: "m"))
        #expect(timeout.isTimeout && !timeout.isConnectionFailure && !timeout.isTrustFailure && timeout.unacceptableStatus == nil)
        let refused = CourierError(stage: .transport, underlyingError: TransportError(.cannotConnect, message: "m"))
        #expect(refused.isConnectionFailure)
        let untrusted = CourierError(stage: .transport, underlyingError: TrustError(host: "h", reason: "r"))
        #expect(untrusted.isTrustFailure)
    }

    /// Through a session: what a caller catches.
    @Test func fromASession() async throws {
        let session = Session(transport: MockTransport { request in
            switch request.head.path {
            case "/lost": .failure(TransportError(.connectionLost, message: "reset by peer"))
            case "/slow": .text("late", delay: .seconds(30))
            default: .status(.ok)
            }
        })
        let lost = await #expect(throws: CourierError.self) { try await session.data(for: request.with(path: "/lost")) }
        #expect(lost?.kind == .connectionFailed)

        let waiting = Task { try await session.data(for: request.with(path: "/slow")) }
        waiting.cancel()
        let cancelled = await #expect(throws: CourierError.self) { try await waiting.value }
        #expect(cancelled?.kind == .cancelled)
    }
}

private extension HTTPRequest {
    func with(path: String) -> HTTPRequest {
        var copy = self
        copy.path = path
        return copy
    }
}
