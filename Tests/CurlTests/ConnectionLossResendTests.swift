@testable import CourierCurl
import CourierCore
import Testing

/// The rule for sending a request again after its connection was lost before any answer, condition by condition.
@Suite("Sending again after a lost connection")
struct ConnectionLossResendTests {
    /// A send on a kept HTTP/1 connection that the server had closed: nothing read.
    private let sendOnClosedKeptConnection = ConnectionLossResend.Attempt(loss: .sendMetClose, keptHTTP1Connection: true, headBytes: 0)
    /// A stream a GOAWAY refused before anything of its answer came.
    private let refusedStream = ConnectionLossResend.Attempt(loss: .goawayRefusal, headBytes: 0)

    private func decide(_ attempt: ConnectionLossResend.Attempt, enabled: Bool = true, resentBefore: Bool = false) -> ConnectionLossResend.Decision {
        ConnectionLossResend.decide(attempt, enabled: enabled, resentBefore: resentBefore)
    }

    @Test func aSendThatMetAKeptHTTP1ConnectionsCloseIsSentAgainOnANewOne() {
        #expect(decide(sendOnClosedKeptConnection) == .onNewConnection)
    }

    /// A GOAWAY's refusal, on a kept connection or on one opened for the call (a reloading server refuses both).
    @Test func aGOAWAYsRefusalIsSentAgainOnAnyConnection() {
        #expect(decide(refusedStream) == .onAnyConnection)
        var kept = refusedStream
        kept.keptHTTP1Connection = true
        #expect(decide(kept) == .onAnyConnection)
    }

    @Test func onceOnlyAndOnlyWhenEnabled() {
        for attempt in [sendOnClosedKeptConnection, refusedStream] {
            #expect(decide(attempt, resentBefore: true) == .no)
            #expect(decide(attempt, enabled: false) == .no)
        }
    }

    /// A send failure on a connection opened for the request, or on an HTTP/2 connection (where a connection libcurl
    /// did not open for the request may have been opened a moment before by another): the server's, now.
    @Test func aSendFailureOnAConnectionNotKeptOverHTTP1IsNotSentAgain() {
        var fresh = sendOnClosedKeptConnection
        fresh.keptHTTP1Connection = false
        #expect(decide(fresh) == .no)
    }

    /// Any byte of an answer means the server took the request.
    @Test func anythingReadIsNotSentAgain() {
        for attempt in [sendOnClosedKeptConnection, refusedStream] {
            var headRead = attempt
            headRead.headBytes = 25   // an interim `100 Continue`, part of a head, or a proxy's CONNECT answer
            #expect(decide(headRead) == .no)
            headRead.headBytes = nil
            #expect(decide(headRead) == .no)
            var bodyRead = attempt
            bodyRead.bodyBytes = 1
            #expect(decide(bodyRead) == .no)
        }
    }

    /// A reset met reading (libcurl sent it again when it could), an HTTP/2 stream the server reset (which it may have
    /// processed), or anything Courier ended: never.
    @Test func otherLossesAndCourierEndingsAreNotSentAgain() {
        var other = sendOnClosedKeptConnection
        other.loss = .other
        #expect(decide(other) == .no)
        for attempt in [sendOnClosedKeptConnection, refusedStream] {
            var ended = attempt
            ended.endedByCourier = true
            #expect(decide(ended) == .no)
        }
    }
}
