import FoundationEssentials

/// A stored cookie: what a `Set-Cookie` field made of it by the storage model of RFC 6265bis §5.7.
///
/// ```swift
/// for cookie in jar.cookies(for: URL(string: "https://example.com/account")!) {
///     print(cookie.name, cookie.value, cookie.expires ?? "session")
/// }
/// ```
public struct Cookie: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How a cookie travels on requests from other sites. Courier makes no cross-site requests of its
    /// own (it is not a browser), so the attribute is kept, written back and reported, not enforced.
    public enum SameSite: String, Sendable, Hashable, Codable {
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None` (only stored with `Secure`).
        case none
        /// No attribute, or one with another value.
        case unspecified
    }

    /// The name (may be empty: `Set-Cookie: value` sets a nameless cookie).
    public var name: String
    /// The value.
    public var value: String
    /// The domain, lower case, without a leading dot.
    public var domain: String
    /// True when the cookie goes to ``domain`` exactly; false when to its subdomains too (a `Domain`
    /// attribute was given).
    public var hostOnly: Bool
    /// The path it goes to (and below).
    public var path: String
    /// When it expires; `nil` for a session cookie (kept until the jar is dropped, never saved expired).
    public var expires: Date?
    /// Sent over HTTPS only.
    public var secure: Bool
    /// Not for scripts; kept and written back (`#HttpOnly_` in the Netscape file).
    public var httpOnly: Bool
    /// The `SameSite` attribute.
    public var sameSite: SameSite
    /// When it was first stored: among cookies of equal path length, older ones are sent first.
    public var created: Date

    /// A cookie.
    public init(
        name: String, value: String, domain: String, hostOnly: Bool = true, path: String = "/",
        expires: Date? = nil, secure: Bool = false, httpOnly: Bool = false, sameSite: SameSite = .unspecified,
        created: Date = Date()
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.hostOnly = hostOnly
        self.path = path
        self.expires = expires
        self.secure = secure
        self.httpOnly = httpOnly
        self.sameSite = sameSite
        self.created = created
    }

    /// True once ``expires`` has passed at `now`.
    public func isExpired(at now: Date) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// `name=value`, as a `Cookie` header carries it (just the value for a nameless cookie).
    public var pair: String { name.isEmpty ? value : "\(name)=\(value)" }

    /// `name=value` and where it goes, never more of the value than a log should show.
    public var description: String {
        "\(name)=\(value.prefix(16))\(value.count > 16 ? "…" : "") (\(hostOnly ? "" : ".")\(domain)\(path)\(secure ? ", secure" : ""))"
    }
}
