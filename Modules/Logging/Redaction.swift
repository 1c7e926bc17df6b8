import CourierCore
import HTTPTypes

/// What of a request may be written to a log: the URL without credentials (and without query values
/// unless asked) and heads with the secret fields' values replaced. Pure, so it is tested alone.
struct Redaction: Sendable {
    static let placeholder = "REDACTED"

    let fieldNames: Set<HTTPField.Name>
    let logsQueryValues: Bool

    /// `scheme://host[:port]/path[?name=REDACTED&…]`: userinfo dropped, query values replaced.
    func url(of request: HTTPRequest) -> String {
        let scheme = request.scheme ?? "http"
        var authority = request.authority ?? ""
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            authority = String(authority[authority.utf8.index(after: at)...])
        }
        return LogText.escaped("\(scheme)://\(authority)\(target(request.path ?? "/"))")
    }

    /// A request target with its query values replaced (unless ``logsQueryValues``); the fragment,
    /// which never goes on the wire, is dropped.
    func target(_ path: String) -> String {
        var path = Substring(path)
        if let hash = path.utf8.firstIndex(of: UInt8(ascii: "#")) { path = path[..<hash] }
        guard !logsQueryValues, let question = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return String(path) }
        let query = path[path.utf8.index(after: question)...]
        let pairs = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> Substring in
            guard let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) else { return pair }
            return pair[..<equals] + "=" + Self.placeholder
        }
        return path[...question] + pairs.joined(separator: "&")
    }

    /// The fields, one `Name: value` per element, secret values replaced.
    func fields(_ fields: HTTPFields) -> [String] {
        fields.map { field in
            "\(field.name): \(fieldNames.contains(field.name) ? Self.placeholder : LogText.escaped(field.value))"
        }
    }

    /// Lines of a head as a transport traces them (`Name: value`, or a request or status line),
    /// secret values and the request line's query values replaced.
    func redactingHeadLines(_ text: String) -> String {
        // Split by scalars: as Characters, "\r\n" is one, and a split on "\n" would not cut a CRLF head.
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { rawLine -> String in
            let line = Substring(rawLine.last == "\r" ? rawLine.dropLast() : rawLine)
            if let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")),
               let name = HTTPField.Name(String(line[..<colon])), fieldNames.contains(name) {
                return "\(line[..<colon]): \(Self.placeholder)"
            }
            // A request line: METHOD target VERSION.
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            if parts.count == 3, parts[2].hasPrefix("HTTP/"), parts[1].utf8.contains(UInt8(ascii: "?")) {
                return LogText.escaped("\(parts[0]) \(target(String(parts[1]))) \(parts[2])")
            }
            return LogText.escaped(line)
        }.joined(separator: "\n")
    }
}
