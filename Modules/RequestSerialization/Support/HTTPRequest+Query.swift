import HTTPTypes

extension HTTPRequest {
    /// Adds `query` to the request target: after `&` when the path already has a query, after
    /// `?` otherwise; an empty `query` leaves the path as it is (no trailing `?`).
    ///
    /// Works on the path pseudo-header, which holds path and query, so the URL is never rebuilt.
    /// A path ending in a bare `?` gets the query straight after it. A request target has no
    /// fragment; should a hand-built path hold one, the query goes before the `#`. A request
    /// without a path (authority form) gets `/` first.
    mutating func appendQuery(_ query: String) {
        guard !query.isEmpty else { return }
        let target = path ?? "/"
        let resource: Substring
        let fragment: Substring
        if let hash = target.utf8.firstIndex(of: UInt8(ascii: "#")) {
            resource = target[..<hash]
            fragment = target[hash...]
        } else {
            resource = target[...]
            fragment = ""
        }
        let separator: String
        if let questionMark = resource.utf8.firstIndex(of: UInt8(ascii: "?")) {
            separator = resource.utf8.index(after: questionMark) == resource.endIndex ? "" : "&"
        } else {
            separator = "?"
        }
        path = resource + separator + query + fragment
    }
}
