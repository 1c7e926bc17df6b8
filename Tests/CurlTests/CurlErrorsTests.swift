import CCurl
import CourierCore
@testable import CourierCurl
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

@Suite("curl error mapping")
struct CurlErrorsTests {
    @Test func codesMapToTheirKinds() {
        #expect(CurlErrors.kind(of: CURLE_OPERATION_TIMEDOUT) == .timedOut)
        #expect(CurlErrors.kind(of: CURLE_COULDNT_RESOLVE_HOST) == .nameResolution)
        #expect(CurlErrors.kind(of: CURLE_COULDNT_CONNECT) == .cannotConnect)
        #expect(CurlErrors.kind(of: CURLE_PEER_FAILED_VERIFICATION) == .tlsFailure)
        #expect(CurlErrors.kind(of: CURLE_SSL_CONNECT_ERROR) == .tlsFailure)
        #expect(CurlErrors.kind(of: CURLE_UNSUPPORTED_PROTOCOL) == .malformedResponse)
        #expect(CurlErrors.kind(of: CURLE_PARTIAL_FILE) == .truncatedBody)
        #expect(CurlErrors.kind(of: CURLE_RECV_ERROR) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_GOT_NOTHING) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR) == .sendFailed)
        #expect(CurlErrors.kind(of: CURLE_FTP_WEIRD_PASV_REPLY) == .other)
    }

    /// curl reports a broken chunked body under the code of a reset: the detail tells them apart (found by
    /// the chaos server's /chunk-lie, Integration/Tests/IntegrationTests/ChaosTests.swift).
    @Test func aBrokenChunkedBodyIsMalformedNotALostConnection() {
        for detail in [
            "Illegal or missing hexadecimal sequence in chunked-encoding",
            "Malformed encoding found in chunked-encoding",
            "Too long hexadecimal number in chunked-encoding",
        ] {
            let error = CurlErrors.transportError(for: CURLE_RECV_ERROR, detail: detail)
            #expect(error.code == .malformedResponse, "\(detail)")
            #expect(error.underlyingCode == 56)
        }
        #expect(CurlErrors.transportError(for: CURLE_RECV_ERROR, detail: "Recv failure: Connection reset by peer").code == .connectionLost)
    }

    /// A proxy's no to a tunnel is neither a reset (7.88 reports it under a receive error's code) nor a failed
    /// connect (later versions): it is typed as the proxy's refusal, which a retry policy leaves alone (the test
    /// proxy's 407 and 405, Integration/Tests/IntegrationTests/ConnectionTests.swift).
    @Test func aProxyRefusingTheTunnelIsNotALostConnection() {
        for code in [CURLE_RECV_ERROR, CURLE_COULDNT_CONNECT] {
            let error = CurlErrors.transportError(for: code, detail: "CONNECT tunnel failed, response 407")
            #expect(error.code == .proxyRefused)
            #expect(error.message.hasSuffix("response 407"))
            let courier = CourierError(stage: .transport, underlyingError: error)
            #expect(courier.kind == .connectionFailed)
        }
        #expect(!RetryPolicy().retryableTransportErrors.contains(.proxyRefused))
        // A 502 or 504 is the proxy failing to reach the server, a 503 not now: as a connection not made. A 501 is a
        // proxy that makes no tunnels: a refusal.
        for status in [502, 503, 504] {
            #expect(CurlErrors.kind(of: CURLE_RECV_ERROR, detail: "CONNECT tunnel failed, response \(status)") == .cannotConnect)
        }
        for status in [403, 405, 407, 501] {
            #expect(CurlErrors.kind(of: CURLE_RECV_ERROR, detail: "CONNECT tunnel failed, response \(status)") == .proxyRefused)
        }
        #expect(CurlErrors.transportError(for: CURLE_RECV_ERROR, detail: "Proxy CONNECT aborted").code == .connectionLost)
    }

    /// A SOCKS proxy's failures all come as `CURLE_PROXY` (97), which was `.other`: told apart by
    /// `CURLINFO_PROXY_ERROR`, each is typed as the same failure of an HTTP proxy is (the test SOCKS5 proxy's
    /// replies, Integration/Tests/IntegrationTests/ProxyTests.swift).
    @Test func aSOCKSProxysFailuresAreTypedAsAnHTTPProxysAre() {
        let expected: [(CURLproxycode, TransportError.Code)] = [
            (CURLPX_REPLY_CONNECTION_REFUSED, .cannotConnect), (CURLPX_REPLY_HOST_UNREACHABLE, .cannotConnect),
            (CURLPX_REPLY_NETWORK_UNREACHABLE, .cannotConnect), (CURLPX_REPLY_TTL_EXPIRED, .cannotConnect),
            (CURLPX_REPLY_GENERAL_SERVER_FAILURE, .cannotConnect),
            (CURLPX_REPLY_NOT_ALLOWED, .proxyRefused), (CURLPX_USER_REJECTED, .proxyRefused), (CURLPX_NO_AUTH, .proxyRefused),
            (CURLPX_REQUEST_FAILED, .proxyRefused), (CURLPX_REPLY_COMMAND_NOT_SUPPORTED, .proxyRefused),
            (CURLPX_REPLY_ADDRESS_TYPE_NOT_SUPPORTED, .proxyRefused),
            (CURLPX_RESOLVE_HOST, .nameResolution),
            (CURLPX_CLOSED, .connectionLost), (CURLPX_RECV_CONNECT, .connectionLost), (CURLPX_SEND_CONNECT, .connectionLost),
            (CURLPX_BAD_VERSION, .malformedResponse), (CURLPX_REPLY_UNASSIGNED, .malformedResponse),
            (CURLPX_UNKNOWN_MODE, .malformedResponse),
            (CURLPX_LONG_HOSTNAME, .unsupported), (CURLPX_LONG_PASSWD, .unsupported),
            (CURLPX_GSSAPI, .other), (CURLPX_OK, .other),
        ]
        for (proxyError, code) in expected {
            let error = CurlErrors.transportError(for: CURLE_PROXY, detail: "Can't complete SOCKS5 connection", proxyError: Int(proxyError.rawValue))
            #expect(error.code == code, "\(proxyError)")
            #expect(error.underlyingCode == 97)
        }
        // The retry policy treats them as it treats an HTTP proxy's: a server the proxy could not reach is tried
        // again, a refusal is not.
        #expect(RetryPolicy().retryableTransportErrors.contains(.cannotConnect))
        #expect(!RetryPolicy().retryableTransportErrors.contains(.proxyRefused))
        // Another code's proxy error is not read: only CURLE_PROXY carries one.
        #expect(CurlErrors.transportError(for: CURLE_COULDNT_CONNECT, detail: "", proxyError: Int(CURLPX_USER_REJECTED.rawValue)).code == .cannotConnect)
    }

    /// A head past libcurl's bound is the server's fault, not a lost connection: over HTTP/1.1 libcurl says so
    /// under the code of a reset, over HTTP/2 its callback refuses the header block (the chaos servers'
    /// /endless and /fields, Integration/Tests/IntegrationTests/ChaosTests.swift).
    @Test func aHeadPastLibcurlsBoundIsMalformedNotALostConnection() {
        for detail in [
            "Too large response headers: 307222 > 307200",
            "h2_process_pending_input: nghttp2_session_mem_recv() returned -902:The user callback function failed",
        ] {
            let error = CurlErrors.transportError(for: CURLE_RECV_ERROR, detail: detail)
            #expect(error.code == .malformedResponse, "\(detail)")
            #expect(error.underlyingCode == 56)
        }
    }

    /// A connection that failed because no socket could be opened says why (libcurl keeps no errno for it); any
    /// other failure, or a socket that opened, keeps curl's message as it is.
    @Test func aSocketThatCouldNotOpenIsNamed() {
        let curl = "Failed to connect to 127.0.0.1 port 80 after 0 ms: Couldn't connect to server"
        let tooMany = String(cString: strerror(EMFILE)), tooManyInSystem = String(cString: strerror(ENFILE))
        #expect(CurlErrors.detail(curl, of: CURLE_COULDNT_CONNECT, socketErrno: EMFILE) == curl + ": cannot open a socket: " + tooMany)
        #expect(CurlErrors.detail(curl, of: CURLE_COULDNT_CONNECT, socketErrno: 0) == curl)
        #expect(CurlErrors.detail("Connection reset by peer", of: CURLE_RECV_ERROR, socketErrno: EMFILE) == "Connection reset by peer")
        let error = CurlErrors.transportError(for: CURLE_COULDNT_CONNECT, detail: CurlErrors.detail(curl, of: CURLE_COULDNT_CONNECT, socketErrno: ENFILE))
        #expect(error.code == .cannotConnect)
        #expect(error.message.hasSuffix("cannot open a socket: " + tooManyInSystem), "\(error.message)")
    }

    /// Frames nghttp2 refuses as a flood (a header block in more CONTINUATION frames than it takes, more PINGs
    /// than it queues answers for) are the server's doing, as is a head past libcurl's bound: malformed, and so
    /// not retried. nghttp2's other failures (out of memory) keep the receive error's kind; a number that only
    /// begins like a refusing one is not taken for it (the TLS chaos server's /continuations,
    /// `ChaosTests.aFloodOfContinuationFramesIsMalformed`).
    @Test func framesNGHTTP2RefusesAsAFloodAreMalformed() {
        let prefix = "h2_process_pending_input: nghttp2_session_mem_recv() returned "
        let cases: [(String, TransportError.Code)] = [
            ("-905:Too many CONTINUATION frames following a HEADER frame", .malformedResponse),
            ("-904:Flooding was detected in this HTTP/2 session, and it must be closed", .malformedResponse),
            ("-902:The user callback function failed", .malformedResponse),
            ("-901:Out of memory", .connectionLost),
            ("-9050:Unknown error code", .connectionLost),
            ("-90:Unknown error code", .connectionLost),
        ]
        for (suffix, expected) in cases {
            #expect(CurlErrors.kind(of: CURLE_RECV_ERROR, detail: prefix + suffix) == expected, "\(suffix)")
        }
        #expect(CurlErrors.kind(of: CURLE_RECV_ERROR, detail: "Connection reset by peer, -905") == .connectionLost)
    }

    /// An HTTP/2 stream the server aborted is a lost connection, as a reset is over HTTP/1.1; one reset because
    /// its frames were wrong is malformed. libcurl 7.88's messages and 8.x's.
    @Test func http2StreamResetsAreKindedByTheirErrorCode() {
        let cases: [(String, TransportError.Code)] = [
            ("HTTP/2 stream 1 was not closed cleanly: INTERNAL_ERROR (err 2)", .connectionLost),
            ("HTTP/2 stream 7 was not closed cleanly: CANCEL (err 8)", .connectionLost),
            ("HTTP/2 stream 3 was not closed cleanly: ENHANCE_YOUR_CALM (err 11)", .connectionLost),
            ("HTTP/2 stream 1 was not closed cleanly: PROTOCOL_ERROR (err 1)", .malformedResponse),
            ("HTTP/2 stream 1 was not closed cleanly: COMPRESSION_ERROR (err 9)", .malformedResponse),
            ("HTTP/2 stream 1 reset by server (error 0x2 INTERNAL_ERROR)", .connectionLost),
            ("HTTP/2 stream 1 reset by curl (error 0x1 PROTOCOL_ERROR)", .malformedResponse),
            ("HTTP/2 stream 1 reset by server (error 0x6 FRAME_SIZE_ERROR)", .malformedResponse),
            ("HTTP/2 stream 1 was closed cleanly, but before getting  all response header fields, treated as error", .connectionLost),
            ("", .malformedResponse),
        ]
        for (detail, expected) in cases {
            #expect(CurlErrors.kind(of: CURLE_HTTP2_STREAM, detail: detail) == expected, "\(detail)")
        }
        #expect(CurlErrors.http2ErrorCode(in: "was not closed cleanly: CANCEL (err 8)") == 8)
        #expect(CurlErrors.http2ErrorCode(in: "reset by server (error 0xb ENHANCE_YOUR_CALM)") == 11)
        #expect(CurlErrors.http2ErrorCode(in: "Error in the HTTP2 framing layer") == nil)
    }

    /// A bare `CURLE_HTTP2`, with no message, is libcurl 7.88's report of an HTTP/2 session that ended under the
    /// stream (a GOAWAY that refused it, most often): the connection was lost, and a retry policy may send the
    /// request again. The same code with libcurl's own message is a framing failure.
    @Test func aBareHTTP2ErrorIsALostConnection() {
        #expect(CurlErrors.kind(of: CURLE_HTTP2, detail: "") == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_HTTP2, detail: "nghttp2_session_upgrade2() failed: Invalid argument(-501)") == .malformedResponse)
        // A socket's failure on an earlier attempt (libcurl keeps a transfer's first message), or at the connect.
        #expect(CurlErrors.kind(of: CURLE_HTTP2, detail: "Send failure: Broken pipe") == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_HTTP2, detail: "Recv failure: Connection reset by peer") == .connectionLost)
        let error = CurlErrors.transportError(for: CURLE_HTTP2, detail: "")
        #expect(error.code == .connectionLost)
        #expect(error.message == "Error in the HTTP2 framing layer")
        #expect(error.underlyingCode == 16)
    }

    /// A send the socket refused because the peer closed (EPIPE) or reset (ECONNRESET) the connection is a lost
    /// connection, told by libcurl's "Send failure: " and the errno it recorded with it, whatever language
    /// `strerror` spoke. Any other send failure stays `.sendFailed`: another errno, a message of another kind (the
    /// errno may be an earlier transfer's), or none (nghttp2 refusing a flood).
    @Test func aSendThePeerEndedIsALostConnection() {
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR, detail: "Send failure: Broken pipe", osErrno: Int(EPIPE)) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR, detail: "Send failure: Connection reset by peer", osErrno: Int(ECONNRESET)) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR, detail: "Send failure: Datenübergabe unterbrochen (broken pipe)", osErrno: Int(EPIPE)) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR, detail: "Send failure: No buffer space available", osErrno: Int(ENOBUFS)) == .sendFailed)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR, detail: "", osErrno: Int(EPIPE)) == .sendFailed)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR, detail: "Send failure: Broken pipe", osErrno: 0) == .sendFailed)
        #expect(CurlErrors.kind(of: CURLE_SEND_FAIL_REWIND, detail: "Send failure: Broken pipe", osErrno: Int(EPIPE)) == .sendFailed)
        let error = CurlErrors.transportError(for: CURLE_SEND_ERROR, detail: "Send failure: Broken pipe", osErrno: Int(EPIPE))
        #expect(error.code == .connectionLost)
        #expect(error.message == "Failed sending data to the peer: Send failure: Broken pipe")
    }

    @Test func errorsKeepCurlsCodeAndBothMessages() {
        let error = CurlErrors.transportError(for: CURLE_COULDNT_CONNECT, detail: "Failed to connect to 127.0.0.1 port 9")
        #expect(error.underlyingCode == 7)
        #expect(error.message == "Couldn't connect to server: Failed to connect to 127.0.0.1 port 9")
        #expect(CurlErrors.transportError(for: CURLE_OPERATION_TIMEDOUT, detail: "").message == "Timeout was reached")
        let repeated = "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"
        #expect(CurlErrors.transportError(for: CURLE_COULDNT_CONNECT, detail: repeated).message == repeated)
    }

    @Test func httpVersionsAreNamed() {
        #expect(CurlMetrics.httpVersion(2) == "HTTP/1.1")
        #expect(CurlMetrics.httpVersion(3) == "HTTP/2")
        #expect(CurlMetrics.httpVersion(0) == nil)
    }
}

/// The counts a handle's sockets are opened with (`ccurl_open_socket`): the first failure's errno is kept, and named only
/// when no socket opened, since libcurl may try an address of each family (IPv6, then IPv4) for one connection.
@Suite("Socket openings")
struct SocketOpeningsTests {
    /// Opens a socket of `family` through the shim, as libcurl would call it; closes what opened.
    func open(_ family: Int32, _ openings: SocketOpenings) {
        var address = curl_sockaddr()
        address.family = family
        address.socktype = Int32(SOCK_STREAM.rawValue)
        address.protocol = 0
        let socket = ccurl_open_socket(openings.counts, CURLSOCKTYPE_IPCXN, &address)
        if socket >= 0 {
            #expect(fcntl(socket, F_GETFD) & FD_CLOEXEC != 0, "a socket that a started program would inherit")
            close(socket)
        }
    }

    @Test func aFailureIsNamedOnlyWhenNoSocketOpened() {
        let openings = SocketOpenings()
        defer { openings.deallocate() }
        #expect(openings.failure == 0)
        open(-1, openings)   // no such family: EAFNOSUPPORT
        #expect(openings.failure == EAFNOSUPPORT)
        open(AF_INET, openings)
        #expect(openings.failure == 0, "a socket opened, so the connection's failure is not the socket's")
        openings.reset()
        open(AF_INET, openings)
        open(-1, openings)
        #expect(openings.failure == 0)
        openings.reset()
        open(-1, openings)
        open(-2, openings)
        #expect(openings.failure == EAFNOSUPPORT, "the first failure is kept")
    }
}
