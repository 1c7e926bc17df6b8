import CourierCore
import FoundationEssentials
import HTTPTypes

/// Cookies kept between requests by the rules browsers follow (RFC 6265bis): `Set-Cookie` parsing
/// (`Expires`, `Max-Age`, `Domain`, `Path`, `Secure`, `HttpOnly`, `SameSite`), host-only and domain
/// cookies, public suffixes refused, `__Secure-` and `__Host-` prefixes, expiry, 50 cookies a domain and
/// 3,000 in all, and the order of the `Cookie` header. In memory; ``write(netscapeFile:now:)`` and
/// ``init(netscapeFile:publicSuffixes:)`` share it with curl's `-c` and `-b` files.
///
/// Give it to a session through a ``CookieInterceptor``:
///
/// ```swift
/// let jar = CookieJar()
/// configuration.networkInterceptors.append(CookieInterceptor(jar: jar))
/// ```
/// Safe to use from any thread; one jar may serve several sessions.
public final class CookieJar: Sendable {
    private let store: Locked<CookieStore>
    /// The list that refuses cookies for public suffixes.
    public let publicSuffixes: PublicSuffixList

    /// A jar holding `cookies`, refusing `Domain` attributes that `publicSuffixes` lists.
    public init(
        cookies: [Cookie] = [],
        publicSuffixes: PublicSuffixList = .system,
        maximumPerDomain: Int = 50,
        maximumTotal: Int = 3000
    ) {
        self.publicSuffixes = publicSuffixes
        store = Locked(CookieStore(cookies: cookies, maximumPerDomain: maximumPerDomain, maximumTotal: maximumTotal))
    }

    /// A jar holding the cookies of a Netscape cookie file (curl's `-c` output), expired ones left out.
    ///
    /// - Throws: Core's ``CourierCore/FileError`` when the file cannot be read or is not UTF-8 text. Lines that are
    ///   not cookies are skipped, as curl skips them.
    public convenience init(netscapeFile path: String, publicSuffixes: PublicSuffixList = .system, now: Date = Date()) throws(FileError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw FileError(operation: .read, path: path, reason: "\(error)")
        }
        guard let text = String(validating: data, as: UTF8.self) else { throw FileError(operation: .read, path: path, reason: "not UTF-8 text") }
        let cookies = NetscapeCookieFile.cookies(from: text, now: now).cookies.filter { !$0.isExpired(at: now) }
        self.init(cookies: cookies, publicSuffixes: publicSuffixes)
    }

    /// Every cookie held, expired ones included until they are next looked at.
    public var allCookies: [Cookie] {
        store.withLock { $0.cookies }
    }

    /// Stores the cookies `setCookieFields` (the values of a response's `Set-Cookie` fields) set for a
    /// response to `request`; fields the rules refuse are ignored.
    public func store(setCookieFields fields: [String], for request: HTTPRequest, now: Date = Date()) {
        guard !fields.isEmpty, let origin = CookieOrigin(scheme: request.scheme, authority: request.authority, path: request.path) else { return }
        store(fields, from: origin, now: now)
    }

    /// Stores the cookies `setCookieFields` set for a response from `url`.
    public func store(setCookieFields fields: [String], for url: URL, now: Date = Date()) {
        guard !fields.isEmpty, let origin = Self.origin(of: url) else { return }
        store(fields, from: origin, now: now)
    }

    /// The cookies a request to `url` carries now, in `Cookie` header order.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        guard let origin = Self.origin(of: url) else { return [] }
        return store.withLock { $0.cookies(for: origin, now: now) }
    }

    /// The `Cookie` header value for `request` (`a=1; b=2`), or `nil` when no cookie goes with it.
    public func cookieHeader(for request: HTTPRequest, now: Date = Date()) -> String? {
        guard let origin = CookieOrigin(scheme: request.scheme, authority: request.authority, path: request.path) else { return nil }
        let cookies = store.withLock { $0.cookies(for: origin, now: now) }
        return cookies.isEmpty ? nil : cookies.map(\.pair).joined(separator: "; ")
    }

    /// Drops every cookie.
    public func removeAll() {
        store.withLock { $0.removeAll() }
    }

    /// Drops the cookies expired at `now`.
    public func removeExpired(now: Date = Date()) {
        store.withLock { $0.removeExpired(now: now) }
    }

    /// Writes the cookies not expired at `now`, session cookies included (expiry `0`, as curl writes them), to
    /// `path` in the Netscape format curl reads with `-b`. The file is replaced atomically (written beside it,
    /// then renamed) and readable by its owner only (mode 0600): cookies are credentials.
    ///
    /// - Throws: Core's ``CourierCore/FileError`` when the file cannot be written.
    public func write(netscapeFile path: String, now: Date = Date()) throws(FileError) {
        let cookies = store.withLock { $0.cookies.filter { !$0.isExpired(at: now) } }
        try PrivateFile.replace(path, with: Data(NetscapeCookieFile.text(for: cookies).utf8))
    }

    private func store(_ fields: [String], from origin: CookieOrigin, now: Date) {
        let parsed = fields.compactMap { SetCookie.parse($0, now: now) }
        guard !parsed.isEmpty else { return }
        let publicSuffixes = self.publicSuffixes
        store.withLock { store in
            for cookie in parsed { _ = store.store(cookie, from: origin, now: now, isPublicSuffix: publicSuffixes.isPublicSuffix) }
        }
    }

    private static func origin(of url: URL) -> CookieOrigin? {
        guard let host = url.host(percentEncoded: false), !host.isEmpty else { return nil }
        let path = url.path(percentEncoded: true)
        let scheme = url.scheme?.lowercased()
        return CookieOrigin(host: host, path: path.isEmpty ? "/" : path, secure: scheme == "https" || scheme == "wss")
    }
}
