@testable import CourierCookies
import FoundationEssentials
import Testing

/// RFC 6265bis §5.6: reading a `Set-Cookie` field (`SetCookie`).
@Suite struct SetCookieTests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test func nameValueAndEveryAttribute() throws {
        let cookie = try #require(SetCookie.parse(
            " sid = a b ; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Domain=.Example.COM; Path=/account; Secure; HttpOnly; SameSite=Lax; Unknown=1",
            now: now
        ))
        #expect(cookie.name == "sid" && cookie.value == "a b")
        #expect(cookie.expires == Date(timeIntervalSince1970: 1_445_412_480))
        #expect(cookie.domain == "example.com" && cookie.path == "/account")
        #expect(cookie.secure && cookie.httpOnly && cookie.sameSite == .lax)
    }

    @Test func maxAgeWinsOverExpiresAndLifetimesAreCapped() throws {
        let both = try #require(SetCookie.parse("a=1; Max-Age=60; Expires=Wed, 21 Oct 2015 07:28:00 GMT", now: now))
        #expect(both.expires == now + 60)
        let gone = try #require(SetCookie.parse("a=1; Max-Age=0", now: now))
        #expect(gone.expires! <= now)
        let negative = try #require(SetCookie.parse("a=1; Max-Age=-5", now: now))
        #expect(negative.expires! <= now)
        let forever = try #require(SetCookie.parse("a=1; Max-Age=99999999999999999999", now: now))
        #expect(forever.expires == now + 400 * 86_400)
        let far = try #require(SetCookie.parse("a=1; Expires=Fri, 01 Jan 9999 00:00:00 GMT", now: now))
        #expect(far.expires == now + 400 * 86_400)
        // Not a number: the attribute is ignored, the cookie kept.
        #expect(try #require(SetCookie.parse("a=1; Max-Age=1e3", now: now)).expires == nil)
        #expect(try #require(SetCookie.parse("a=1; Expires=soon", now: now)).expires == nil)
    }

    @Test func aNamelessCookieAndWhatIsIgnored() throws {
        let nameless = try #require(SetCookie.parse("just-a-value", now: now))
        #expect(nameless.name == "" && nameless.value == "just-a-value")
        #expect(SetCookie.parse("=", now: now) == nil)
        #expect(SetCookie.parse("", now: now) == nil)
        #expect(SetCookie.parse("a=b\u{1}c", now: now) == nil)            // a control character
        #expect(SetCookie.parse("a=b\nSet-Cookie: c=d", now: now) == nil)   // header injection
        #expect(SetCookie.parse("a=\(String(repeating: "x", count: 4096))", now: now) == nil)
        #expect(SetCookie.parse("a=b\tc", now: now)?.value == "b\tc")       // TAB is allowed
    }

    @Test func attributeEdgeCases() throws {
        #expect(try #require(SetCookie.parse("a=1; Path=relative", now: now)).path == nil)   // default path applies
        #expect(try #require(SetCookie.parse("a=1; Domain=", now: now)).domain == nil)
        #expect(try #require(SetCookie.parse("a=1; SameSite=Bogus", now: now)).sameSite == .unspecified)
        #expect(try #require(SetCookie.parse("a=1; secure=no", now: now)).secure)              // any value: set
        let long = try #require(SetCookie.parse("a=1; Path=/\(String(repeating: "p", count: 1024))", now: now))
        #expect(long.path == nil)   // an attribute value over 1024 bytes is ignored
        #expect(try #require(SetCookie.parse("a=1;;; path=/x ;", now: now)).path == "/x")
    }
}
