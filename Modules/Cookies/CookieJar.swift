import CourierCore
import FoundationEssentials
import HTTPTypes

/// Cookies kept between requests by the rules browsers follow (RFC 6265bis): `Set-Cookie` parsing
/// (`Expires`, `Max-Age`, `Domain`, `Path`, `Secure`, `HttpOnly`, `SameSite`), host-only and domain
/// cookies, public suffixes refused, `__Secure-` and `__Host-` prefixes, expiry, 50 cookies a domain and
/// 3,000 in all, the order of the `Cookie` header and its size (``maximumHeaderLength``). In memory;
/// ``write(netscapeFile:now:)`` and ``init(netscapeFile:publicSuffixes:)`` share it with curl's `-c` and `-b` files.
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
    /// The longest `Cookie` value a request gets from the jar, its own cookies included: cookies that would take it
    /// further are not sent (the most specific go first). 8,182 bytes by default, so that the field (`Cookie: ` and
    /// the value) stays within 8,190 bytes, libcurl's bound, which fits nginx's 8 KiB header buffers and Apache's
    /// 8,190-byte field limit. Without a bound, any host of a site may set 50 cookies of 4 KiB for the whole site
    /// (`Domain=example.com`), and every later request to it carries 200 KB, which servers refuse (nginx: `400
    /// Request Header Or Cookie Too Large`) for as long as the cookies live: up to 400 days.
    public let maximumHeaderLength: Int

    /// A jar holding `cookies`, refusing `Domain` attributes that `publicSuffixes` lists.
    public init(
        cookies: [Cookie] = [],
        publicSuffixes: PublicSuffixList = .system,
        maximumPerDomain: Int = 50,
        maximumTotal: Int = 3000,
        maximumHeaderLength: Int = 8182
    ) {
        self.publicSuffixes = publicSuffixes
        self.maximumHeaderLength = maximumHeaderLength
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

    /// The `Cookie` header value for `request` (`a=1; b=2`), or `nil` when no cookie goes with it. Cookies that
    /// would take the value past ``maximumHeaderLength`` are left out.
    public func cookieHeader(for request: HTTPRequest, now: Date = Date()) -> String? {
        cookieHeader(for: request, after: "", now: now)
    }

    /// `own` (a request's own `Cookie` value, or empty) followed by the jar's cookies for `request` that fit in
    /// ``maximumHeaderLength`` with it, in order; `nil` when the jar adds none.
    func cookieHeader(for request: HTTPRequest, after own: String, now: Date = Date()) -> String? {
        guard let origin = CookieOrigin(scheme: request.scheme, authority: request.authority, path: request.path) else { return nil }
        let cookies = store.withLock { $0.cookies(for: origin, now: now) }
        var value = own
        for cookie in cookies {
            let pair = cookie.pair
            // A cookie with neither name nor value (one a jar was given: `Set-Cookie` never stores it) adds nothing,
            // not an empty header or a dangling "; ".
            guard !pair.isEmpty else { continue }
            let separator = value.isEmpty ? 0 : 2
            // A cookie that does not fit is skipped, not the end: a later, smaller one (a session's id behind a
            // large one set for the whole site) may still fit.
            guard value.utf8.count + separator + pair.utf8.count <= maximumHeaderLength else { continue }
            if separator > 0 { value += "; " }
            value += pair
        }
        // `+=` only appends, so a longer value is one the jar added to.
        return value.utf8.count > own.utf8.count ? value : nil
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
