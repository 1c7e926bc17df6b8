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

    /// From a request's scheme, authority (port and user info dropped) and path.
    init?(scheme: String?, authority: String?, path: String?) {
        guard let authority, !authority.isEmpty else { return nil }
        var host = Substring(authority)
        if let at = host.lastIndex(of: "@") { host = host[host.index(after: at)...] }
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            host = host[...close]
        } else if let colon = host.lastIndex(of: ":") {
            host = host[..<colon]
        }
        let scheme = scheme?.lowercased()
        self.init(host: String(host), path: path ?? "/", secure: scheme == "https" || scheme == "wss")
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
            guard domain == origin.host else { return .ignored("the domain \(domain) is a public suffix") }
            domain = ""
        }
        let hostOnly: Bool
        if domain.isEmpty || (origin.isIPAddress && domain == origin.host) {
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
        let lowercasedName = set.name.lowercased()
        if lowercasedName.hasPrefix("__secure-") && !set.secure { return .ignored("a __Secure- cookie without Secure") }
        if lowercasedName.hasPrefix("__host-") && !(set.secure && hostOnly && path == "/") {
            return .ignored("a __Host- cookie needs Secure, no Domain and Path=/")
        }
        if !set.secure && !origin.secure, cookies.contains(where: {
            $0.name == set.name && $0.secure
                && (Self.domainMatches($0.domain, domain) || Self.domainMatches(domain, $0.domain))
                && Self.pathMatches(path, $0.path)
        }) {
            return .ignored("an insecure origin may not shadow a secure cookie")
        }
        var cookie = Cookie(
            name: set.name, value: set.value, domain: domain, hostOnly: hostOnly, path: path,
            expires: set.expires, secure: set.secure, httpOnly: set.httpOnly, sameSite: set.sameSite, created: now
        )
        let existing = cookies.firstIndex { $0.name == cookie.name && $0.domain == cookie.domain && $0.hostOnly == cookie.hostOnly && $0.path == cookie.path }
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
            (cookie.hostOnly ? origin.host == cookie.domain : Self.domainMatches(origin.host, cookie.domain))
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
        let sameDomain = cookies.indices.filter { cookies[$0].domain == cookie.domain }
        if sameDomain.count > maximumPerDomain { evict(among: sameDomain, now: now) }
        if cookies.count > maximumTotal { evict(among: Array(cookies.indices), now: now) }
    }

    private mutating func evict(among candidates: [Int], now: Date) {
        let victim = candidates.first { cookies[$0].isExpired(at: now) }
            ?? candidates.min { cookies[$0].created < cookies[$1].created }
        if let victim { cookies.remove(at: victim) }
    }

    /// RFC 6265 §5.1.3: the same string, or `host` ends with `.domain` and is a host name, not an address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        let origin = CookieOrigin(host: host, path: "/", secure: false)
        return !origin.isIPAddress && host.hasSuffix("." + domain)
    }

    /// RFC 6265 §5.1.4: the same path, or the cookie's is a prefix ending at a `/` of the request's.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.utf8.dropFirst(cookiePath.utf8.count).first == UInt8(ascii: "/")
    }

    /// RFC 6265 §5.1.4: the request path up to its last `/`, or `/`.
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let last = requestPath.lastIndex(of: "/"), last != requestPath.startIndex else { return "/" }
        return String(requestPath[..<last])
    }
}
