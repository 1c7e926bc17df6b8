@testable import CourierCookies
import FoundationEssentials
import Testing

/// RFC 6265bis's storage model and retrieval (`CookieStore`), with a public-suffix list of our own.
@Suite struct CookieStoreTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private let suffixes: Set<String> = ["com", "uk", "co.uk", "test"]

    private func origin(_ url: String) -> CookieOrigin {
        let scheme = url.prefix { $0 != ":" }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        return CookieOrigin(scheme: String(scheme), authority: String(authority), path: path.isEmpty ? "/" : String(path))!
    }

    @discardableResult
    private func store(_ field: String, from url: String, into store: inout CookieStore, at time: Date? = nil) -> CookieStore.Outcome {
        guard let set = SetCookie.parse(field, now: time ?? now) else { return .ignored("unparsed") }
        return store.store(set, from: origin(url), now: time ?? now, isPublicSuffix: suffixes.contains)
    }

    private func header(_ store: CookieStore, _ url: String, at time: Date? = nil) -> String {
        store.cookies(for: origin(url), now: time ?? now).map(\.pair).joined(separator: "; ")
    }

    @Test func hostOnlyAndDomainCookies() {
        var jar = CookieStore()
        store("host=1", from: "http://www.example.com/", into: &jar)
        store("domain=2; Domain=example.com", from: "http://www.example.com/", into: &jar)
        #expect(header(jar, "http://www.example.com/") == "host=1; domain=2")
        #expect(header(jar, "http://example.com/") == "domain=2")
        #expect(header(jar, "http://a.b.example.com/") == "domain=2")
        #expect(header(jar, "http://notexample.com/") == "")
        #expect(header(jar, "http://WWW.EXAMPLE.COM./x") == "host=1; domain=2")
    }

    @Test func aDomainMustMatchTheHostAndNotBeAPublicSuffix() {
        var jar = CookieStore()
        #expect(store("a=1; Domain=other.com", from: "http://www.example.com/", into: &jar) != .stored)
        #expect(store("a=1; Domain=com", from: "http://www.example.com/", into: &jar) != .stored)
        #expect(store("a=1; Domain=co.uk", from: "http://shop.co.uk/", into: &jar) != .stored)
        #expect(store("a=1; Domain=ample.com", from: "http://example.com/", into: &jar) != .stored)
        // A public suffix that is the host itself: kept as a host-only cookie.
        #expect(store("b=2; Domain=test", from: "http://test/", into: &jar) == .stored)
        #expect(jar.cookies.first?.hostOnly == true && jar.cookies.first?.domain == "test")
        #expect(header(jar, "http://sub.test/") == "")
    }

    @Test func addressesMatchOnlyThemselves() {
        var jar = CookieStore()
        #expect(store("a=1; Domain=127.0.0.1", from: "http://127.0.0.1:8080/", into: &jar) == .stored)
        #expect(store("b=2; Domain=0.0.1", from: "http://127.0.0.1/", into: &jar) != .stored)
        store("c=3", from: "http://[::1]:9000/", into: &jar)
        #expect(header(jar, "http://127.0.0.1/") == "a=1")
        #expect(header(jar, "http://[::1]/") == "c=3")
    }

    @Test func pathsDefaultAndMatch() {
        var jar = CookieStore()
        store("default=1", from: "http://example.com/docs/guide/page?x=/y", into: &jar)
        store("root=2; Path=/", from: "http://example.com/docs/guide/page", into: &jar)
        store("docs=3; Path=/docs", from: "http://example.com/", into: &jar)
        #expect(jar.cookies.first { $0.name == "default" }?.path == "/docs/guide")
        #expect(header(jar, "http://example.com/docs/guide/page") == "default=1; docs=3; root=2")
        #expect(header(jar, "http://example.com/docs/") == "docs=3; root=2")
        #expect(header(jar, "http://example.com/docs") == "docs=3; root=2")
        #expect(header(jar, "http://example.com/docsx") == "root=2")
        #expect(header(jar, "http://example.com/docs/guidebook") == "docs=3; root=2")
    }

    @Test func secureCookiesAndPrefixes() {
        var jar = CookieStore()
        #expect(store("s=1; Secure", from: "http://example.com/", into: &jar) != .stored)
        #expect(store("s=1; Secure", from: "https://example.com/", into: &jar) == .stored)
        #expect(header(jar, "http://example.com/") == "")
        #expect(header(jar, "https://example.com/") == "s=1")
        // An insecure origin may not overwrite or shadow it.
        #expect(store("s=2", from: "http://example.com/", into: &jar) != .stored)
        #expect(store("n=1; SameSite=None", from: "https://example.com/", into: &jar) != .stored)
        #expect(store("n=1; SameSite=None; Secure", from: "https://example.com/", into: &jar) == .stored)
        #expect(store("__Secure-a=1", from: "https://example.com/", into: &jar) != .stored)
        #expect(store("__Secure-a=1; Secure", from: "https://example.com/", into: &jar) == .stored)
        #expect(store("__Host-a=1; Secure; Path=/; Domain=example.com", from: "https://example.com/", into: &jar) != .stored)
        #expect(store("__Host-a=1; Secure; Path=/x", from: "https://example.com/x", into: &jar) != .stored)
        #expect(store("__Host-a=1; Secure; Path=/", from: "https://example.com/", into: &jar) == .stored)
    }

    @Test func replacingKeepsTheCreationTimeAndExpiryRemoves() {
        var jar = CookieStore()
        store("a=1", from: "http://example.com/", into: &jar)
        store("b=1", from: "http://example.com/", into: &jar, at: now + 1)
        #expect(store("a=2", from: "http://example.com/", into: &jar, at: now + 2) == .replaced)
        #expect(header(jar, "http://example.com/", at: now + 3) == "a=2; b=1")   // a is still the older one
        #expect(store("a=gone; Max-Age=0", from: "http://example.com/", into: &jar, at: now + 4) == .removed)
        #expect(header(jar, "http://example.com/", at: now + 5) == "b=1")
        store("c=1; Max-Age=10", from: "http://example.com/", into: &jar, at: now + 6)
        #expect(header(jar, "http://example.com/", at: now + 15) == "b=1; c=1")
        #expect(header(jar, "http://example.com/", at: now + 16) == "b=1")
    }

    @Test func aDomainHoldsAtMostItsLimit() {
        var jar = CookieStore(maximumPerDomain: 3)
        for index in 0..<5 {
            store("c\(index)=\(index)", from: "http://example.com/", into: &jar, at: now + Double(index))
        }
        #expect(header(jar, "http://example.com/", at: now + 10) == "c2=2; c3=3; c4=4")
        // An expired cookie goes before the oldest live one.
        store("short=1; Max-Age=1", from: "http://example.com/", into: &jar, at: now + 20)
        store("late=1", from: "http://example.com/", into: &jar, at: now + 30)
        #expect(header(jar, "http://example.com/", at: now + 31) == "c3=3; c4=4; late=1")
    }

    @Test func namesPathsAndPrefixesCompareAsBytes() {
        var jar = CookieStore()
        // "é" precomposed and decomposed are two names, as in browsers (Swift's == would call them one).
        store("\u{E9}=1", from: "https://example.com/", into: &jar)
        store("e\u{301}=2", from: "https://example.com/", into: &jar)
        #expect(jar.cookies.count == 2)
        // A combining mark after the prefix does not hide it; after "/", it does not hide the path's start.
        #expect(store("__Secure-\u{301}x=1", from: "https://example.com/", into: &jar) != .stored)
        #expect(store("p=1; Path=/\u{7EF}o", from: "https://example.com/", into: &jar) == .stored)
        #expect(jar.cookies.last?.path == "/\u{7EF}o")
        #expect(CookieStore.defaultPath("/a\u{301}/b\u{301}") == "/a\u{301}")
        #expect(!CookieStore.pathMatches("/e\u{301}x", "/\u{E9}"))
    }
}
