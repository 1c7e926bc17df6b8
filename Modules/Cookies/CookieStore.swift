import CourierCore
import FoundationEssentials

/// Where a request goes, as cookies see it: the canonical host, the path without its query, and whether
/// the scheme is a secure one.
struct CookieOrigin: Equatable {
    /// Lower case; an IPv6 address without its brackets.
    var host: String
    var path: String
    var secure: Bool

    var isIPAddress: Bool {
        host.contains(":") || (host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." })
    }

    init(host: String, path: String, secure: Bool) {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }   // "example.com." names the same host
        self.host = host
        let withoutQuery = path.prefix { $0 != "?" && $0 != "#" }
        self.path = withoutQuery.isEmpty ? "/" : String(withoutQuery)
        self.secure = secure
    }

    /// From a request's scheme, authority (port and user info dropped, by Core's one authority parser) and path.
    init?(scheme: String?, authority: String?, path: String?) {
        guard let authority, let parts = AuthorityParts(authority), !parts.host.isEmpty else { return nil }
        let scheme = scheme?.lowercased()
        self.init(host: String(parts.host), path: path ?? "/", secure: scheme == "https" || scheme == "wss")
    }
}

/// The cookie storage model (RFC 6265bis §5.7) and retrieval (§5.8.3) as a pure value: what a
/// `Set-Cookie` does to the stored cookies, and which cookies a request carries, in which order. The
/// public-suffix question and the clock come in as arguments; ``CookieJar`` wraps it in a lock.
struct CookieStore {
    /// What storing one `Set-Cookie` did.
    enum Outcome: Equatable {
        case stored
        case replaced
        /// An expiry in the past removed the stored cookie of that name (or there was none to remove).
        case removed
        case ignored(String)
    }

    private(set) var cookies: [Cookie] = []
    let maximumPerDomain: Int
    let maximumTotal: Int

    init(maximumPerDomain: Int = 50, maximumTotal: Int = 3000) {
        self.maximumPerDomain = max(1, maximumPerDomain)
        self.maximumTotal = max(1, maximumTotal)
    }

    init(cookies: [Cookie], maximumPerDomain: Int = 50, maximumTotal: Int = 3000) {
        self.init(maximumPerDomain: maximumPerDomain, maximumTotal: maximumTotal)
        for cookie in cookies { insert(cookie) }
    }

    /// Stores what `set` says for a response from `origin`.
    mutating func store(_ set: SetCookie, from origin: CookieOrigin, now: Date, isPublicSuffix: (String) -> Bool) -> Outcome {
        var domain = set.domain ?? ""
        if !domain.isEmpty, isPublicSuffix(domain) {
            guard domain.sameBytes(as: origin.host) else { return .ignored("the domain \(domain) is a public suffix") }
            domain = ""
        }
        let hostOnly: Bool
        if domain.isEmpty || (origin.isIPAddress && domain.sameBytes(as: origin.host)) {
            hostOnly = true
            domain = origin.host
        } else {
            guard Self.domainMatches(origin.host, domain) else {
                return .ignored("the domain \(domain) does not match the host \(origin.host)")
            }
            hostOnly = false
        }
        let path = set.path ?? Self.defaultPath(origin.path)
        if set.secure && !origin.secure { return .ignored("a secure cookie from an insecure origin") }
        if set.sameSite == .none && !set.secure { return .ignored("SameSite=None without Secure") }
        // Prefixes are bytes, ASCII case-insensitive: a combining mark after "__Secure-" must not hide the prefix.
        if set.name.hasASCIIPrefix("__secure-") && !set.secure { return .ignored("a __Secure- cookie without Secure") }
        if set.name.hasASCIIPrefix("__host-") && !(set.secure && hostOnly && path.sameBytes(as: "/")) {
            return .ignored("a __Host- cookie needs Secure, no Domain and Path=/")
        }
        if !set.secure && !origin.secure, cookies.contains(where: {
            $0.name.sameBytes(as: set.name) && $0.secure
                && (Self.domainMatches($0.domain, domain) || Self.domainMatches(domain, $0.domain))
                && Self.pathMatches(path, $0.path)
        }) {
            return .ignored("an insecure origin may not shadow a secure cookie")
        }
        var cookie = Cookie(
            name: set.name, value: set.value, domain: domain, hostOnly: hostOnly, path: path,
            expires: set.expires, secure: set.secure, httpOnly: set.httpOnly, sameSite: set.sameSite, created: now
        )
        let existing = cookies.firstIndex {
            $0.name.sameBytes(as: cookie.name) && $0.domain.sameBytes(as: cookie.domain) && $0.hostOnly == cookie.hostOnly
                && $0.path.sameBytes(as: cookie.path)
        }
        if let existing {
            cookie.created = cookies[existing].created
            cookies.remove(at: existing)
        }
        if cookie.isExpired(at: now) { return .removed }
        insert(cookie, now: now)
        return existing == nil ? .stored : .replaced
    }

    /// The cookies a request to `origin` carries at `now`, longest path first, then oldest first.
    func cookies(for origin: CookieOrigin, now: Date) -> [Cookie] {
        cookies.filter { cookie in
            (cookie.hostOnly ? origin.host.sameBytes(as: cookie.domain) : Self.domainMatches(origin.host, cookie.domain))
                && Self.pathMatches(origin.path, cookie.path)
                && (!cookie.secure || origin.secure)
                && !cookie.isExpired(at: now)
        }.sorted { a, b in
            a.path.utf8.count != b.path.utf8.count ? a.path.utf8.count > b.path.utf8.count : a.created < b.created
        }
    }

    /// Drops every expired cookie.
    mutating func removeExpired(now: Date) {
        cookies.removeAll { $0.isExpired(at: now) }
    }

    /// Drops every cookie.
    mutating func removeAll() {
        cookies.removeAll()
    }

    /// Adds `cookie`, then evicts to the limits: expired cookies first, then the oldest.
    private mutating func insert(_ cookie: Cookie, now: Date = Date()) {
        cookies.append(cookie)
        let sameDomain = cookies.indices.filter { cookies[$0].domain.sameBytes(as: cookie.domain) }
        if sameDomain.count > maximumPerDomain { evict(among: sameDomain, now: now) }
        if cookies.count > maximumTotal { evict(among: Array(cookies.indices), now: now) }
    }

    private mutating func evict(among candidates: [Int], now: Date) {
        let victim = candidates.first { cookies[$0].isExpired(at: now) }
            ?? candidates.min { cookies[$0].created < cookies[$1].created }
        if let victim { cookies.remove(at: victim) }
    }

    // Domains, paths and names compare as bytes, as the RFC's octets do: Swift's `==` and `hasPrefix` compare
    // characters under canonical equivalence, so "é" and "e" + U+0301 would be one cookie name (the `cookies` fuzz
    // target found a path whose "/" a combining mark hid).

    /// RFC 6265 §5.1.3: the same string, or `host` ends with `.domain` and is a host name, not an address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host.sameBytes(as: domain) { return true }
        let origin = CookieOrigin(host: host, path: "/", secure: false)
        return !origin.isIPAddress && host.utf8.count > domain.utf8.count
            && host.utf8.reversed().starts(with: ("." + domain).utf8.reversed())
    }

    /// RFC 6265 §5.1.4: the same path, or the cookie's is a prefix ending at a `/` of the request's.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath.sameBytes(as: cookiePath) { return true }
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4: the request path up to its last `/`, or `/`.
    static func defaultPath(_ requestPath: String) -> String {
        let bytes = Array(requestPath.utf8)
        guard bytes.first == UInt8(ascii: "/"), let last = bytes.lastIndex(of: UInt8(ascii: "/")), last > 0 else { return "/" }
        return String(decoding: bytes[..<last], as: UTF8.self)
    }
}

extension String {
    /// The same UTF-8 bytes (not Swift's canonical equivalence).
    func sameBytes(as other: String) -> Bool { utf8.elementsEqual(other.utf8) }

    /// Starts with `prefix`'s bytes, ASCII letters in either case (`prefix` lower case).
    func hasASCIIPrefix(_ prefix: String) -> Bool {
        utf8.count >= prefix.utf8.count
            && zip(utf8, prefix.utf8).allSatisfy { byte, expected in
                (byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte) == expected
            }
    }
}
