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
        if let coding = lastTransferCoding(head.headerFields) {
            return coding.lowercased() == "chunked" ? .chunked : .connectionEnd
        }
        return reading.count == nil ? .connectionEnd : .length
    }

    /// The last coding the `Transfer-Encoding` fields name (empty when they name none), or nil without the field.
    private static func lastTransferCoding(_ fields: HTTPFields) -> Substring? {
        var last: Substring?
        for field in fields where field.name.matches(.transferEncoding) {
            last = last ?? ""
            for var coding in field.value.split(separator: ",") {
                while coding.first == " " || coding.first == "\t" { coding.removeFirst() }
                while coding.last == " " || coding.last == "\t" { coding.removeLast() }
                if !coding.isEmpty { last = coding }
            }
        }
        return last
    }
}
