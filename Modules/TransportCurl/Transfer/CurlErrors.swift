internal import CCurl
import CourierCore

/// Maps libcurl's result codes to typed transport errors, keeping curl's code and message.
enum CurlErrors {
    static func transportError(for code: CURLcode, detail: String) -> TransportError {
        let summary = String(cString: curl_easy_strerror(code))
        // curl's detail often repeats its summary; say each thing once.
        let message = detail.isEmpty ? summary : detail.contains(summary) ? detail : "\(summary): \(detail)"
        return TransportError(kind(of: code), message: message, underlyingCode: Int(code.rawValue))
    }

    static func kind(of code: CURLcode) -> TransportError.Code {
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
        case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_HTTP2, CURLE_HTTP2_STREAM,
             CURLE_BAD_CONTENT_ENCODING:
            return .malformedResponse
        case CURLE_PARTIAL_FILE:
            return .truncatedBody
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR:
            // Receive errors are almost always a connection reset or closed under us.
            return .connectionLost
        case CURLE_SEND_ERROR, CURLE_SEND_FAIL_REWIND:
            return .sendFailed
        case CURLE_URL_MALFORMAT:
            return .unsupported
        default:
            return .other
        }
    }
}
