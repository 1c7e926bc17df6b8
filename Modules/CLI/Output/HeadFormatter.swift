import CourierCore
import CourierCurl
import HTTPTypes

/// Request and response heads as text, the way `-v` and `--headers` show them:
///
/// ```text
/// GET /get?a=1 HTTP/1.1
/// Host: 127.0.0.1:18080
/// Accept: */*
///
/// HTTP/1.1 200 OK
/// Content-Type: application/json
/// ```
/// The response's HTTP version is shown only when it is certain before the exchange (cleartext
/// is HTTP/1.1 unless HTTP/2 is forced; `--http1.1` over TLS); over TLS without a forced
/// version ALPN decides, and the status line reads `HTTP 200 OK` (`--timing` shows the version).
///
/// With `terminal` set, everything the server or a redirect chose (reason phrase, header names
/// and values, the path and authority of a redirected request) is escaped (``TerminalText``);
/// without it, header values are written as the bytes received.
enum HeadFormatter {
    /// The request head, ending with a blank line.
    static func format(_ request: HTTPRequest, version: String?, terminal: Bool) -> [UInt8] {
        var text = ConsoleText(terminal: terminal)
        text.append(untrusted: request.method.rawValue)
        text.append(" ")
        text.append(untrusted: request.path ?? "/")
        if let version { text.append(" " + version) }
        text.append("\n")
        if let authority = request.authority, !request.headerFields.contains(where: { $0.name.canonicalName == "host" }) {
            text.append("Host: ")
            text.append(untrusted: authority)
            text.append("\n")
        }
        append(request.headerFields, to: &text)
        text.append("\n")
        return text.bytes
    }

    /// The response head, ending with a blank line.
    static func format(_ response: HTTPResponse, version: String?, terminal: Bool) -> [UInt8] {
        var text = ConsoleText(terminal: terminal)
        text.append((version ?? "HTTP") + " \(response.status.code)")
        if !response.status.reasonPhrase.isEmpty {
            text.append(" ")
            text.append(untrusted: response.status.reasonPhrase)
        }
        text.append("\n")
        append(response.headerFields, to: &text)
        text.append("\n")
        return text.bytes
    }

    /// `Name: value` lines, each value as the bytes received (the `value` string would turn
    /// bytes that are not UTF-8 into U+FFFD).
    static func append(_ fields: HTTPFields, to text: inout ConsoleText) {
        for field in fields {
            text.append(untrusted: field.name.rawName)
            text.append(": ")
            field.withUnsafeBytesOfValue { text.append(untrusted: $0) }
            text.append("\n")
        }
    }

    /// The version a request to `scheme` will speak when it is known before connecting.
    static func knownVersion(scheme: String?, preference: CurlTransport.Configuration.HTTPVersion) -> String? {
        let secure = scheme?.lowercased() == "https"
        switch preference {
        case .http1_1: return "HTTP/1.1"
        case .http2: return secure ? nil : "HTTP/2"
        case .automatic: return secure ? nil : "HTTP/1.1"
        }
    }
}
