internal import CCurl
import CourierCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Maps libcurl's result codes to typed transport errors, keeping curl's code and message.
enum CurlErrors {
    /// `proxyError` is the transfer's `CURLINFO_PROXY_ERROR`, which tells a SOCKS proxy's failures apart;
    /// `osErrno` its `CURLINFO_OS_ERRNO`, which tells why a socket's send failed.
    static func transportError(for code: CURLcode, detail: String, proxyError: Int = 0, osErrno: Int = 0) -> TransportError {
        let summary = String(cString: curl_easy_strerror(code))
        // curl's detail often repeats its summary; say each thing once.
        let message = detail.isEmpty ? summary : detail.contains(summary) ? detail : "\(summary): \(detail)"
        let kind = code == CURLE_PROXY ? socksKind(of: proxyError) : kind(of: code, detail: detail, osErrno: osErrno)
        return TransportError(kind, message: message, underlyingCode: Int(code.rawValue))
    }

    /// The kind of a SOCKS proxy's failure, which libcurl reports as `CURLE_PROXY` whatever it was, told apart by
    /// `CURLINFO_PROXY_ERROR`: as the same failure of an HTTP proxy's `CONNECT` is, so that a retry policy treats
    /// both proxies alike.
    static func socksKind(of proxyError: Int) -> TransportError.Code {
        switch CURLproxycode(rawValue: UInt32(truncatingIfNeeded: proxyError)) {
        case CURLPX_REPLY_CONNECTION_REFUSED, CURLPX_REPLY_HOST_UNREACHABLE, CURLPX_REPLY_NETWORK_UNREACHABLE,
             CURLPX_REPLY_TTL_EXPIRED, CURLPX_REPLY_GENERAL_SERVER_FAILURE:
            // The proxy could not reach the server, as an HTTP proxy's 502 or 504 says: a retry may mend it.
            return .cannotConnect
        case CURLPX_REPLY_NOT_ALLOWED, CURLPX_NO_AUTH, CURLPX_USER_REJECTED, CURLPX_REQUEST_FAILED, CURLPX_IDENTD,
             CURLPX_IDENTD_DIFFER, CURLPX_REPLY_COMMAND_NOT_SUPPORTED, CURLPX_REPLY_ADDRESS_TYPE_NOT_SUPPORTED:
            // The proxy said no: to the credentials (none, or wrong), to the target, or to the request's form.
            return .proxyRefused
        case CURLPX_RESOLVE_HOST:
            // `socks5://` and `socks4://` resolve the server's name here, before the proxy hears of it.
            return .nameResolution
        case CURLPX_CLOSED, CURLPX_RECV_ADDRESS, CURLPX_RECV_AUTH, CURLPX_RECV_CONNECT, CURLPX_RECV_REQACK,
             CURLPX_SEND_AUTH, CURLPX_SEND_CONNECT, CURLPX_SEND_REQUEST:
            return .connectionLost
        case CURLPX_BAD_VERSION, CURLPX_BAD_ADDRESS_TYPE, CURLPX_REPLY_UNASSIGNED, CURLPX_UNKNOWN_MODE:
            // The proxy's answer is not SOCKS as the client spoke it (UNKNOWN_MODE: it chose an authentication
            // method the client did not offer).
            return .malformedResponse
        case CURLPX_LONG_HOSTNAME, CURLPX_LONG_USER, CURLPX_LONG_PASSWD:
            // A name or credentials longer than SOCKS can carry (255 bytes): nothing was sent.
            return .unsupported
        default:
            return .other
        }
    }

    /// curl's message, with why a socket could not be opened when that is why a connection failed: libcurl 7.88
    /// reports a failed `socket(2)` (a process out of file descriptors, the system out of buffers) as "Couldn't connect
    /// to server", as for a server that refused, and keeps no errno; `socketErrno` is `socket`'s own when no socket
    /// opened (``SocketOpenings/failure``), else 0.
    static func detail(_ detail: String, of code: CURLcode, socketErrno: Int32) -> String {
        guard code == CURLE_COULDNT_CONNECT, socketErrno != 0 else { return detail }
        return detail + ": cannot open a socket: \(String(cString: strerror(socketErrno)))"
    }

    /// The kind of a failure: from curl's code, and from its detail message where one code covers failures
    /// of different kinds (a broken chunked body and a reset are both `CURLE_RECV_ERROR`; a malformed HTTP/2
    /// stream and one the server aborted are both `CURLE_HTTP2_STREAM`).
    static func kind(of code: CURLcode, detail: String = "", osErrno: Int = 0) -> TransportError.Code {
        // A proxy that answered the CONNECT with a status other than 2xx: "CONNECT tunnel failed, response 407",
        // under the code of a receive error in 7.88 (a reset's), so told by the message whatever the code. Nothing
        // was lost: a 4xx is the proxy saying no, and a 501 that it makes no tunnels, which a retry as it is would
        // hear again; a 502 or 504 says it could not reach the server, a 503 not now, which a retry may mend, as for
        // a connection not made.
        if let range = detail.firstRange(of: "CONNECT tunnel failed") {
            let status = Int(detail[range.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber })
            return [502, 503, 504].contains(status ?? 0) ? .cannotConnect : .proxyRefused
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .nameResolution
        case CURLE_COULDNT_CONNECT:
            return .cannotConnect
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CLIENTCERT:
            return .tlsFailure
        case CURLE_HTTP2_STREAM:
            return http2StreamKind(detail)
        case CURLE_HTTP2 where detail.isEmpty || detail.hasPrefix(sendFailurePrefix) || detail.hasPrefix(receiveFailurePrefix):
            // libcurl 7.88 says nothing more when the HTTP/2 session ended under a stream that nghttp2 closed
            // itself: most often a GOAWAY whose last-stream-id is below the stream (a server shutting down
            // gracefully, or reloading; RFC 9113 section 6.8 says the request was not processed), or a stream sent
            // on or read from a session that had already ended. Either way the connection ended without the
            // answer, as a reset does. (Rarely, the stream nghttp2 closed was one it reset over the server's bad
            // frames, a GOAWAY having ended the session too; nothing libcurl reports tells that apart, and a retry
            // policy then sends an idempotent request again.) A socket's failure is the same lost connection: its
            // message stays from an attempt libcurl made again on a new connection, and libcurl's HTTP/2 connect
            // reports any failure as 16. libcurl's own failures carry other messages ("nghttp2_session_upgrade2()
            // failed") and stay malformed below.
            return .connectionLost
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_HTTP2, CURLE_BAD_CONTENT_ENCODING:
            return .malformedResponse
        case CURLE_PARTIAL_FILE:
            return .truncatedBody
        case CURLE_RECV_ERROR where detail.contains("chunked-encoding"):
            // A chunk-size line that is no size, or chunk data not followed by CRLF: curl says "Illegal or
            // missing hexadecimal sequence", "Malformed encoding found" or "Too long hexadecimal number" "in
            // chunked-encoding" under the receive error's code. The server broke HTTP; retrying won't help.
            return .malformedResponse
        case CURLE_RECV_ERROR where detail.contains("Too large response headers") || refusedHTTP2Frames(detail):
            // libcurl's bound on a head reached: over HTTP/1.1 "Too large response headers: 307222 > 307200" (300
            // KiB, informational heads before it counted); over HTTP/2 a head or trailers past what libcurl keeps,
            // which it refuses from nghttp2's callback, or frames nghttp2 itself refuses as a flood. The server
            // sent too much; retrying won't help.
            return .malformedResponse
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR:
            // Receive errors are almost always a connection reset or closed under us.
            return .connectionLost
        case CURLE_SEND_ERROR where peerEndedTheConnection(detail: detail, osErrno: osErrno):
            // The socket's send failed because the peer had closed or reset the connection: a server that ended an
            // HTTP/2 connection (a GOAWAY, then the close) while libcurl still wrote streams on it, or an HTTP/1.1
            // connection closed as a request went out. The connection was lost, as a reset read says.
            return .connectionLost
        case CURLE_SEND_ERROR, CURLE_SEND_FAIL_REWIND:
            return .sendFailed
        case CURLE_URL_MALFORMAT:
            return .unsupported
        default:
            return .other
        }
    }

    /// How libcurl 7.88 begins the message of a socket's failed send or receive (`failf(data, "Send failure: %s", …)`),
    /// followed by `strerror`'s text.
    static let sendFailurePrefix = "Send failure: "
    static let receiveFailurePrefix = "Recv failure: "

    /// Whether a send failed on the socket itself (libcurl's "Send failure: …", written as it records the system's
    /// error) because the peer had closed the connection (EPIPE) or reset it (ECONNRESET). The errno, not the text
    /// after the colon: that text is `strerror`'s, in whatever language the program's locale chose. libcurl 7.88
    /// never clears `CURLINFO_OS_ERRNO` between a handle's transfers, so the message, which this transfer wrote, says
    /// that the errno is this transfer's. A send nghttp2 refused (a flood it will not answer) has no such message.
    static func peerEndedTheConnection(detail: String, osErrno: Int) -> Bool {
        detail.hasPrefix(sendFailurePrefix) && (osErrno == Int(EPIPE) || osErrno == Int(ECONNRESET))
    }

    /// nghttp2's refusal of what the server sent, from curl's message ("h2_process_pending_input:
    /// nghttp2_session_mem_recv() returned -905:Too many CONTINUATION frames following a HEADER frame"):
    /// - NGHTTP2_ERR_CALLBACK_FAILURE (-902): one of libcurl's HTTP/2 callbacks refused a frame, which in libcurl
    ///   7.88 means a header block (head or trailers) larger than it keeps. Courier's own refusals carry their own
    ///   error, so they never reach this.
    /// - NGHTTP2_ERR_FLOODED (-904): the server sent more frames needing an answer (PING, SETTINGS) than nghttp2
    ///   queues answers for.
    /// - NGHTTP2_ERR_TOO_MANY_CONTINUATIONS (-905): a header block cut into more CONTINUATION frames than nghttp2
    ///   takes (8 in Debian's 1.52.0, from the fix for CVE-2024-28182), such as a flood of empty ones.
    ///
    /// Each is the server breaking HTTP/2 or flooding it, never a connection lost on the way.
    static func refusedHTTP2Frames(_ detail: String) -> Bool {
        guard let range = detail.firstRange(of: "nghttp2_session_mem_recv() returned ") else { return false }
        let code = Int(detail[range.upperBound...].prefix { $0 == "-" || $0.isNumber })
        return code.map(refusingNGHTTP2Errors.contains) ?? false
    }

    /// The errors of `nghttp2_session_mem_recv` that ``refusedHTTP2Frames(_:)`` takes for a refusal.
    static let refusingNGHTTP2Errors: Set<Int> = [-902, -904, -905]

    /// HTTP/2 error codes (RFC 9113 section 7) that say the frames themselves were wrong: PROTOCOL_ERROR,
    /// FLOW_CONTROL_ERROR, FRAME_SIZE_ERROR, COMPRESSION_ERROR.
    static let malformedHTTP2ErrorCodes: Set<Int> = [0x1, 0x3, 0x6, 0x9]

    /// A stream that ended without its whole response. Reset with an abort (INTERNAL_ERROR, CANCEL,
    /// REFUSED_STREAM...), or closed before its head, it is the HTTP/2 form of a reset connection: nginx
    /// sends RST_STREAM INTERNAL_ERROR where over HTTP/1.1 it would close the connection. Reset because the
    /// frames were wrong, it is a malformed response.
    static func http2StreamKind(_ detail: String) -> TransportError.Code {
        if let code = http2ErrorCode(in: detail) {
            return malformedHTTP2ErrorCodes.contains(code) ? .malformedResponse : .connectionLost
        }
        // "was closed cleanly, but before getting all response header fields", "was not closed cleanly
        // before end of the underlying stream": the stream or its connection ended early.
        return detail.contains("closed cleanly") ? .connectionLost : .malformedResponse
    }

    /// The RST_STREAM error code in curl's message: "(err 2)" in libcurl 7.x ("HTTP/2 stream 1 was not
    /// closed cleanly: INTERNAL_ERROR (err 2)"), "(error 0x2 INTERNAL_ERROR)" in 8.x ("HTTP/2 stream 1 reset
    /// by server (error 0x2 INTERNAL_ERROR)").
    static func http2ErrorCode(in detail: String) -> Int? {
        for (marker, radix) in [("(err ", 10), ("(error 0x", 16)] {
            guard let range = detail.firstRange(of: marker) else { continue }
            let digits = detail[range.upperBound...].prefix { $0.isHexDigit }
            if let code = Int(digits, radix: radix) { return code }
        }
        return nil
    }
}
