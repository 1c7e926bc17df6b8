@testable import CourierCurl
import CourierCore
import Testing

/// The rule for sending a request again after its connection was lost before any answer, condition by condition.
@Suite("Sending again after a lost connection")
struct ConnectionLossResendTests {
    /// A send on a kept HTTP/1 connection that the server had closed: nothing opened, nothing read.
    private let lostKeptConnection = ConnectionLossResend.Attempt(failure: .connectionLost, connectionsOpened: 0, headBytes: 0)

    private func decide(_ attempt: ConnectionLossResend.Attempt, enabled: Bool = true, resentBefore: Bool = false) -> ConnectionLossResend.Decision {
        ConnectionLossResend.decide(attempt, enabled: enabled, resentBefore: resentBefore)
    }

    @Test func aKeptConnectionLostBeforeAnyAnswerIsSentAgainOnANewOne() {
        #expect(decide(lostKeptConnection) == .onNewConnection)
    }

    /// A GOAWAY's refusal, on a kept connection or on one opened for the call (a reloading server refuses both).
    @Test func anHTTP2RefusalIsSentAgainOnAnyLiveConnection() {
        var refused = lostKeptConnection
        refused.http2SessionEnded = true
        #expect(decide(refused) == .onAnyConnection)
        refused.connectionsOpened = 1
        #expect(decide(refused) == .onAnyConnection)
        refused.headBytes = 40
        #expect(decide(refused) == .no)
    }

    @Test func onceOnlyAndOnlyWhenEnabled() {
        #expect(decide(lostKeptConnection, resentBefore: true) == .no)
        #expect(decide(lostKeptConnection, enabled: false) == .no)
    }

    /// A connection libcurl opened for the request was not kept from before: its loss (but for an HTTP/2 refusal)
    /// says something of the server now, which the caller's retry policy judges.
    @Test func aNewConnectionIsNotSentAgain() {
        var fresh = lostKeptConnection
        fresh.connectionsOpened = 1
        #expect(decide(fresh) == .no)
        fresh.connectionsOpened = nil
        #expect(decide(fresh) == .no)
        var none = lostKeptConnection
        none.hadConnection = false
        #expect(decide(none) == .no)
    }

    /// Any byte of an answer means the server took the request.
    @Test func anythingReadIsNotSentAgain() {
        var headRead = lostKeptConnection
        headRead.headBytes = 25   // an interim `100 Continue`, or part of the head
        #expect(decide(headRead) == .no)
        headRead.headBytes = nil
        #expect(decide(headRead) == .no)
        var bodyRead = lostKeptConnection
        bodyRead.bodyBytes = 1
        #expect(decide(bodyRead) == .no)
    }

    @Test func otherFailuresAreNotSentAgain() {
        for code in [TransportError.Code.sendFailed, .timedOut, .malformedResponse, .truncatedBody, .tlsFailure, .cannotConnect, .other] {
            var attempt = lostKeptConnection
            attempt.failure = code
            #expect(decide(attempt) == .no, "\(code)")
        }
        var ended = lostKeptConnection
        ended.endedByCourier = true
        #expect(decide(ended) == .no)
    }
}
