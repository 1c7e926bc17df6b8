import FoundationEssentials
import HTTPTypes

/// The redirect stage could not follow a redirect.
public struct RedirectError: Error, Sendable, CustomStringConvertible {
    /// Why a redirect was not followed.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// More redirects than the policy allows.
        public static let tooManyRedirects = Reason(name: "too many redirects")
        /// A 307/308 must re-send the body, but the body can be read only once.
        public static let bodyNotReplayable = Reason(name: "body not replayable")
        /// The `Location` header is not a valid URL, or not one of http or https (a redirect to `file:` or `ftp:` is
        /// never followed).
        public static let invalidLocation = Reason(name: "invalid Location")
        /// The redirect has several `Location` fields that differ. Clients and proxies disagree on which one counts (curl
        /// and Go follow the first, okhttp the last, Chrome refuses), so none is followed.
        public static let ambiguousLocation = Reason(name: "ambiguous Location")
        /// The reason's name.
        public var description: String { name }
    }

    /// Why.
    public var reason: Reason
    /// The redirects followed so far, the refused one last.
    public var history: [RedirectHop]
    /// The limit in force, for ``Reason/tooManyRedirects``.
    public var limit: Int?
    /// The offending `Location` value, for ``Reason/invalidLocation``; the first one, for ``Reason/ambiguousLocation``.
    public var location: String?
    /// The first `Location` value that differs from ``location``, for ``Reason/ambiguousLocation``.
    public var otherLocation: String?

    /// A redirect error.
    public init(reason: Reason, history: [RedirectHop], limit: Int? = nil, location: String? = nil, otherLocation: String? = nil) {
        self.reason = reason
        self.history = history
        self.limit = limit
        self.location = location
        self.otherLocation = otherLocation
    }

    /// A sentence a user can act on.
    public var description: String {
        switch reason {
        case .tooManyRedirects:
            return "stopped after \(limit ?? history.count) redirects (the limit); the last one pointed to \(location ?? "?")"
        case .bodyNotReplayable:
            let code = history.last.map { String($0.response.status.code) } ?? "307/308"
            return "a \(code) redirect must re-send the request body, but the body can be read only once; send a replayable body to follow it"
        case .ambiguousLocation:
            return "the redirect has Location fields that differ (\(location ?? "?") and \(otherLocation ?? "?")); clients and proxies disagree on which one counts, so neither is followed"
        default:
            guard let location else { return "the redirect has no Location header" }
            // Read as the redirect stage reads it: a URL of another scheme is valid, and refused for its scheme.
            if let scheme = URL(string: location)?.scheme?.lowercased(), scheme != "http", scheme != "https" {
                return "the redirect's Location has the scheme \(scheme):, and only http and https redirects are followed: \(location)"
            }
            return "the redirect's Location header is not a valid URL: \(location)"
        }
    }
}
