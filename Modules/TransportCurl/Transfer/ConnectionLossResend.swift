import CourierCore

/// When the transport itself sends again a request whose connection was lost before any answer
/// (``CurlTransport/Configuration/resendsOnConnectionLoss``): pure, so that each condition is tested on its own
/// (`ConnectionLossResendTests`); ``CurlTransfer/mayResend(after:)`` gathers what it decides on.
///
/// libcurl 7.88 sends a request again on a new connection when a connection it reused turns out to be closed before
/// a byte of the answer came, for any method (`Curl_retry_request`), but only when it finds that out by a read, or
/// by the send of the request's head; and an HTTP/2 stream the server reset with REFUSED_STREAM. Two such failures it
/// leaves to its caller, and this sends them again, once:
/// - a send that meets the close of a kept connection (`CURLE_SEND_ERROR` once the transfer is under way, or on TLS):
///   libcurl's rule for a read, applied to a send;
/// - an HTTP/2 stream whose session ended under it before a byte of its answer, most often because a GOAWAY refused
///   it (its last-stream-id below the stream: RFC 9113 section 6.8 says the server did not process it, and that the
///   request may be sent again), which libcurl reports as a bare `CURLE_HTTP2`. A server shutting down or reloading
///   sends such a GOAWAY on connections it accepted a moment before too, so a new connection's refusal counts.
enum ConnectionLossResend {
    /// What the transport does with a failed request.
    enum Decision: Equatable, Sendable {
        /// Hands the failure to the caller.
        case no
        /// Sends the request again on a connection libcurl opens for it: a server that closed one idle HTTP/1
        /// connection (a keep-alive timeout, a reload) has usually closed the others it kept with it.
        case onNewConnection
        /// Sends it again on any live connection: an ended HTTP/2 session's connection is gone, and the others to
        /// the host are shared streams that libcurl checks as it uses them.
        case onAnyConnection
    }

    /// What the failed attempt was.
    struct Attempt: Equatable, Sendable {
        /// The kind of the failure, as the caller would see it.
        var failure: TransportError.Code
        /// libcurl's `CURLE_HTTP2` typed as a lost connection: the stream's HTTP/2 session ended under it, most
        /// often by a GOAWAY that refused it.
        var http2SessionEnded = false
        /// Connections libcurl opened for the request (`CURLINFO_NUM_CONNECTS`): 0 when it reused one. Nil when
        /// libcurl could not say.
        var connectionsOpened: Int?
        /// Bytes of response heads libcurl read (`CURLINFO_HEADER_SIZE`), interim ones too. Nil when it could not say.
        var headBytes: Int?
        /// Bytes of response body that came.
        var bodyBytes: Int64 = 0
        /// Whether libcurl gave the request a connection at all.
        var hadConnection = true
        /// Whether Courier itself ended the transfer (a refusal of its own, the trust evaluator's, a cancellation),
        /// or the call's time is up: nothing is sent again then.
        var endedByCourier = false
    }

    /// Whether, and how, `attempt` is sent again, when the configuration allows it (`enabled`) and the call was not
    /// sent again before (`resentBefore`): once per call, so that a server that refuses every connection ends it.
    static func decide(_ attempt: Attempt, enabled: Bool, resentBefore: Bool) -> Decision {
        guard enabled, !resentBefore, !attempt.endedByCourier, attempt.hadConnection,
              attempt.failure == .connectionLost, attempt.headBytes == 0, attempt.bodyBytes == 0
        else { return .no }
        if attempt.http2SessionEnded { return .onAnyConnection }
        // Any other loss only on a kept connection: one opened for the request that fails says something of the
        // server now, which the caller's retry policy judges.
        return attempt.connectionsOpened == 0 ? .onNewConnection : .no
    }
}
