import HTTPTypes

/// What the observing products (logging, tracing, metrics) say about a request the same way: its URL without
/// credentials or query values, its method as OpenTelemetry names it, an error's kind as one token.
package enum TelemetryNames {
    /// The methods OpenTelemetry's HTTP conventions name; any other is `_OTHER` (a method is the caller's choice,
    /// and a span name or a metric dimension must keep a low cardinality).
    package static let knownMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH", "QUERY"]

    package static func method(_ request: HTTPRequest) -> String {
        knownMethods.contains(request.method.rawValue) ? request.method.rawValue : "_OTHER"
    }

    /// An error kind as one token, e.g. `timed_out`.
    package static func errorType(_ kind: CourierError.Kind) -> String {
        String(kind.description.map { $0 == " " ? "_" : $0 })
    }

    /// `scheme://host[:port]/path[?name=REDACTED&…]`: user information dropped, query values replaced unless
    /// `keepsQueryValues`, the fragment (never sent) dropped.
    package static func url(of request: HTTPRequest, keepsQueryValues: Bool) -> String {
        let scheme = request.scheme ?? "http"
        var authority = Substring(request.authority ?? "")
        if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
            authority = authority[authority.utf8.index(after: at)...]
        }
        return "\(scheme)://\(authority)\(target(request.path ?? "/", keepsQueryValues: keepsQueryValues))"
    }

    /// A request target with its fragment dropped and, unless `keepsQueryValues`, its query values replaced by
    /// `REDACTED` (the names stay).
    package static func target(_ path: String, keepsQueryValues: Bool) -> String {
        var path = Substring(path)
        if let hash = path.utf8.firstIndex(of: UInt8(ascii: "#")) { path = path[..<hash] }
        guard !keepsQueryValues, let question = path.utf8.firstIndex(of: UInt8(ascii: "?")) else { return String(path) }
        let pairs = path[path.utf8.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
            pair.utf8.firstIndex(of: UInt8(ascii: "=")).map { pair[..<$0] + "=" + redacted } ?? pair
        }
        return path[...question] + pairs.joined(separator: "&")
    }

    /// What stands in for a value that must not be written: a query value, a credential.
    package static let redacted = "REDACTED"
}
