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
enum HeadFormatter {
    /// The request head, ending with a blank line.
    static func format(_ request: HTTPRequest, version: String?) -> String {
        var text = "\(request.method.rawValue) \(request.path ?? "/")"
        if let version { text += " " + version }
        text += "\n"
        if let authority = request.authority, !request.headerFields.contains(where: { $0.name.canonicalName == "host" }) {
            text += "Host: \(authority)\n"
        }
        text += fields(request.headerFields)
        return text + "\n"
    }

    /// The response head, ending with a blank line.
    static func format(_ response: HTTPResponse, version: String?) -> String {
        var text = (version ?? "HTTP") + " \(response.status.code)"
        if !response.status.reasonPhrase.isEmpty { text += " " + response.status.reasonPhrase }
        text += "\n" + fields(response.headerFields)
        return text + "\n"
    }

    /// `Name: value` lines.
    static func fields(_ fields: HTTPFields) -> String {
        fields.map { "\($0.name.rawName): \($0.value)\n" }.joined()
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
