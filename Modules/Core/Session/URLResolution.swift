import FoundationEssentials

/// Resolving request paths against a base URL, with AFNetworking's trailing-slash rule.
enum URLResolution {
    /// The base URL as a session keeps it: a non-empty path gains a trailing `/` so relative
    /// references land inside it (`…/v1` → `…/v1/`).
    static func normalizedBaseURL(_ url: URL) -> URL {
        let path = url.path(percentEncoded: true)
        guard !path.isEmpty, !path.hasSuffix("/") else { return url }
        return url.appendingPathComponent("", isDirectory: true)
    }

    /// The absolute `http`/`https` URL for `reference`, resolved against `base` by RFC 3986 §5.
    static func resolve(_ reference: String, against base: URL?) throws(InvalidRequestError) -> URL {
        let resolved: URL?
        if let base {
            resolved = reference.isEmpty ? base : URL(string: reference, relativeTo: base)?.absoluteURL
        } else {
            resolved = URL(string: reference)
        }
        guard let url = resolved else {
            throw InvalidRequestError(.malformedURL, input: reference, detail: "it is not a valid URL or URL reference")
        }
        guard let scheme = url.scheme?.lowercased() else {
            throw InvalidRequestError(.malformedURL, input: reference, detail: "a URL needs a scheme (http:// or https://) when the session has no base URL")
        }
        guard scheme == "http" || scheme == "https" else {
            throw InvalidRequestError(.unsupportedScheme, input: reference, detail: "only http and https are supported")
        }
        guard let host = url.host, !host.isEmpty else {
            throw InvalidRequestError(.malformedURL, input: reference, detail: "the URL has no host")
        }
        return url
    }
}
