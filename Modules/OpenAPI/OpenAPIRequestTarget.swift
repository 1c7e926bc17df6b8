import CourierCore
import FoundationEssentials
import HTTPTypes

/// Joins a generated client's server URL and an operation's relative request into the absolute request
/// a ``CourierCore/Session`` sends.
enum OpenAPIRequestTarget {
    /// The server URL is not one a request can go to (no `http`/`https` scheme or no host).
    struct InvalidServerURL: Error, CustomStringConvertible {
        let url: URL
        var description: String { "the OpenAPI server URL \(url.absoluteString) has no http or https scheme and host" }
    }

    /// `request` with the server's scheme and authority, and its path after the server's path prefix.
    static func resolve(_ request: HTTPRequest, against baseURL: URL) throws -> HTTPRequest {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = baseURL.host(percentEncoded: true), !host.isEmpty else {
            throw InvalidServerURL(url: baseURL)
        }
        var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = baseURL.port { authority += ":\(port)" }
        var prefix = baseURL.path(percentEncoded: true)
        while prefix.hasSuffix("/") { prefix.removeLast() }
        var path = request.path ?? "/"
        if !path.hasPrefix("/") { path = "/" + path }
        var resolved = request
        resolved.scheme = scheme
        resolved.authority = authority
        resolved.path = prefix + path
        return resolved
    }
}
