import CourierCore
import HTTPTypes

/// How an HTTP/1 response's body ends, by RFC 9112 section 6.3's rules: what a client must know before it can take
/// a body as whole.
///
/// Pure, so it is tested without a socket. Only a body that ends with its connection needs more than its bytes to be
/// known whole: over TLS, the server's `close_notify` (``CloseNotifyWatch``).
enum BodyFraming: Equatable {
    /// No body, whatever the fields say: the answer to a HEAD, a 1xx, a 204 or a 304 (rule 1).
    case none
    /// A `Transfer-Encoding` whose last coding is chunked: the last chunk ends it (rule 3).
    case chunked
    /// A `Content-Length`: the count ends it (rule 6).
    case length
    /// Neither: the body ends when the connection does (rules 3 and 7).
    case connectionEnd

    /// How the body of `head`, the answer to a `method` request, ends; `reading` is
    /// `ContentLengthCheck.read(head.headerFields)`, and a head with a problem in it is refused before this is asked.
    static func of(_ head: HTTPResponse, method: HTTPRequest.Method, reading: ContentLengthCheck.Reading) -> BodyFraming {
        let code = head.status.code
        if method == .head || (100..<200).contains(code) || code == 204 || code == 304 { return .none }
        switch reading {
        case .transferCoding(let lastIsChunked, _): return lastIsChunked ? .chunked : .connectionEnd
        case .count: return .length
        case .none, .problem: return .connectionEnd
        }
    }

    /// Whether the body of `head`, read from a status line of `version` (`HTTP/1.1`), ends with its connection, which
    /// over TLS needs the server's close_notify: the one decision a transfer makes for the heads it reads and a
    /// template keeps for the heads that repeat it. Only a head without a count of bytes can (so a transfer that has
    /// one asks nothing), and only over HTTP/1: HTTP/2 ends every body with its stream.
    static func endsWithConnection(
        _ head: HTTPResponse, version: String, method: HTTPRequest.Method, reading: ContentLengthCheck.Reading
    ) -> Bool {
        version.utf8.starts(with: "HTTP/1".utf8) && of(head, method: method, reading: reading) == .connectionEnd
    }
}
