import CourierCore

/// When the transport itself sends again a request whose connection was lost before any answer
/// (``CurlTransport/Configuration/resendsOnConnectionLoss``): pure, so that each condition is tested on its own
/// (`ConnectionLossResendTests`); ``CurlTransfer/mayResend(after:)`` gathers what it decides on.
///
/// libcurl 7.88 sends a request again itself when a connection it reused turns out to be closed before a byte of the
/// answer came, for any method (`Curl_retry_request`), but only when it finds that out by a read, or by the send of the
/// request's head; and an HTTP/2 stream the server refused with `RST_STREAM` REFUSED_STREAM. Two such failures it
/// leaves to its caller, and only those are sent again here, once:
/// - a send that meets the close of an HTTP/1 connection kept from an earlier exchange (55, "Send failure: Broken
///   pipe" or "Connection reset by peer", once the transfer is under way, or on TLS): libcurl's rule for a read,
///   applied to a send;
/// - an HTTP/2 stream a GOAWAY refused: its last-stream-id below the stream, which RFC 9113 section 6.8 says the
///   server did not process and may be sent again, reported by libcurl as a bare `CURLE_HTTP2` once nghttp2 closed the
///   stream. A server shutting down or reloading sends such a GOAWAY on connections it accepted a moment before too,
///   so it counts on a new connection as well.
///
/// Every other lost connection stays the caller's (its retry policy's): a reset met reading, which libcurl already
/// sent again when it could; an HTTP/2 stream the server reset, which it may have processed; a send that failed on a
/// connection opened for the request, which says something of the server now, or over a Unix socket, whose connections
/// have no ends to tell a kept one by.
enum ConnectionLossResend {
    /// What the transport does with a failed request.
    enum Decision: Equatable, Sendable {
        /// Hands the failure to the caller.
        case no
        /// Sends the request again on a connection libcurl opens for it: a server that closed one idle HTTP/1
        /// connection (a keep-alive timeout, a reload) has usually closed the others it kept with it.
        case onNewConnection
        /// Sends it again on any connection libcurl may give it: not the refusing one (libcurl closes a connection
        /// whose GOAWAY it read), and one whose GOAWAY is still unread may refuse it again, which then fails the call
        /// as before. Opening a connection per refused stream would cost a handshake for each of a burst of streams.
        case onAnyConnection
    }

    /// How the connection was lost, as libcurl reported it.
    enum Loss: Equatable, Sendable {
        /// A send that met the peer's close or reset (55 typed `.connectionLost`).
        case sendMetClose
        /// A bare `CURLE_HTTP2` (nothing in libcurl's error buffer): the stream's HTTP/2 session ended under it, most
        /// often by a GOAWAY that refused it.
        case goawayRefusal
        /// Any other failure.
        case other
    }

    /// What the failed attempt was.
    struct Attempt: Equatable, Sendable {
        var loss: Loss
        /// Whether the connection libcurl last gave the request is an HTTP/1 connection on which an earlier exchange
        /// ended (``ConnectionSockets/socketToCheck(reusing:)``), looked up as the request was given it.
        var keptHTTP1Connection = false
        /// Bytes of response heads libcurl read (`CURLINFO_HEADER_SIZE`), interim ones and a proxy's `CONNECT` answer
        /// too. Nil when it could not say.
        var headBytes: Int?
        /// Bytes of response body that came.
        var bodyBytes: Int64 = 0
        /// Whether Courier itself ended the transfer (a refusal of its own, the trust evaluator's, a cancellation),
        /// or the call's time is up: nothing is sent again then.
        var endedByCourier = false
    }

    /// Whether, and how, `attempt` is sent again, when the configuration allows it (`enabled`) and the call was not
    /// sent again before (`resentBefore`): once per call (on top of libcurl's own resends), so that a server that
    /// refuses every connection ends it.
    static func decide(_ attempt: Attempt, enabled: Bool, resentBefore: Bool) -> Decision {
        guard enabled, !resentBefore, !attempt.endedByCourier, attempt.headBytes == 0, attempt.bodyBytes == 0 else { return .no }
        switch attempt.loss {
        case .goawayRefusal: return .onAnyConnection
        case .sendMetClose: return attempt.keptHTTP1Connection ? .onNewConnection : .no
        case .other: return .no
        }
    }
}
