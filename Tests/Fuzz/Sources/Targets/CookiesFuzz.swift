@testable import CourierCookies
import CourierCore
import Foundation

/// The cookie parsers (`SetCookie`, `HTTPDate`, `NetscapeCookieFile`) and the storage model: `Set-Cookie` fields
/// and cookie files are bytes a server or another program wrote. For every input: a field is ignored or read
/// within RFC 6265bis's limits; what the store keeps obeys the domain, path, secure and prefix rules for the
/// origin that set it; and every cookie it keeps survives a trip through the Netscape file format unchanged.
enum CookiesFuzz: FuzzTarget {
    static let name = "cookies"
    private static let now = Date(timeIntervalSince1970: 1_700_000_000)
    private static let hosts = ["example.com", "www.example.com", "a.b.example.com", "co.uk", "shop.co.uk", "127.0.0.1", "::1", "test"]

    static func run(_ input: FuzzInput) {
        let host = hosts[input.int(in: 0...(hosts.count - 1))]
        let secure = input.bool()
        let path = "/" + input.string(upTo: 24)
        let fields = input.restSplit(at: 0x0A).prefix(16).map { String(decoding: $0, as: UTF8.self) }
        let origin = CookieOrigin(host: host, path: path, secure: secure)
        var store = CookieStore(maximumPerDomain: 8, maximumTotal: 12)
        for field in fields {
            guard let set = SetCookie.parse(field, now: now) else { continue }
            precondition(!set.name.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }, "a control character in \(set.name.debugDescription)")
            precondition(set.name.utf8.count + set.value.utf8.count <= SetCookie.maximumPairLength, "a pair over the limit")
            if let expires = set.expires { precondition(expires <= now + SetCookie.maximumLifetime, "an expiry past 400 days") }
            // One leading dot goes (RFC 6265bis §5.6.3): "..a" stays ".a", which then matches no host.
            if let domain = set.domain { precondition(domain == domain.lowercased(), "domain \(domain)") }
            if let path = set.path { precondition(path.utf8.first == UInt8(ascii: "/"), "path \(path)") }
            _ = store.store(set, from: origin, now: now, isPublicSuffix: { ["com", "uk", "co.uk", "test"].contains($0) })
        }
        precondition(store.cookies.count <= 12, "the store holds \(store.cookies.count) cookies")
        for cookie in store.cookies {
            if cookie.hostOnly {
                precondition(cookie.domain.sameBytes(as: origin.host), "a host-only cookie for \(cookie.domain) from \(origin.host)")
            } else {
                precondition(CookieStore.domainMatches(origin.host, cookie.domain) && cookie.domain != "com" && cookie.domain != "co.uk",
                             "a domain cookie for \(cookie.domain) from \(origin.host)")
            }
            precondition(cookie.path.utf8.first == UInt8(ascii: "/"), "path \(cookie.path)")
            precondition(cookie.domain.utf8.first != UInt8(ascii: "."), "a stored domain \(cookie.domain) starts with a dot")
            precondition(!cookie.secure || secure, "a secure cookie from an insecure origin")
            if cookie.name.hasASCIIPrefix("__host-") { precondition(cookie.secure && cookie.hostOnly && cookie.path.sameBytes(as: "/"), "a bad __Host- cookie") }
            if cookie.name.hasASCIIPrefix("__secure-") { precondition(cookie.secure, "a __Secure- cookie without Secure") }
            precondition(!cookie.isExpired(at: now), "an expired cookie stored")
        }
        // The Netscape format: what is written reads back the same (cookies it cannot hold are left out).
        let text = NetscapeCookieFile.text(for: store.cookies)
        let (read, skipped) = NetscapeCookieFile.cookies(from: text, now: now)
        let writable = store.cookies.filter { cookie in
            ![cookie.name, cookie.value, cookie.domain, cookie.path].contains { $0.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }
        }
        precondition(skipped == 0, "\(skipped) lines of our own file skipped:\n\(text)")
        precondition(read.count == writable.count, "\(writable.count) cookies written, \(read.count) read:\n\(text)")
        for (original, again) in zip(writable.sorted { $0.created < $1.created }, read) {
            precondition(original.name.sameBytes(as: again.name) && original.value.sameBytes(as: again.value)
                && original.domain.sameBytes(as: again.domain)
                && original.hostOnly == again.hostOnly && original.path.sameBytes(as: again.path) && original.secure == again.secure
                && original.httpOnly == again.httpOnly, "\(original) came back as \(again)")
            let seconds = { (date: Date?) in date.map { Int64($0.timeIntervalSince1970.rounded(.up)) } }
            precondition(seconds(original.expires) == seconds(again.expires), "the expiry of \(original) changed")
        }
        // A file of the fuzzer's own: any text, never a crash; what it yields is written back (as a session saves the jar
        // it loaded) and read again with every expiry within the format's bound.
        let (loaded, _) = NetscapeCookieFile.cookies(from: fields.joined(separator: "\n"), now: now)
        let (reloaded, _) = NetscapeCookieFile.cookies(from: NetscapeCookieFile.text(for: loaded), now: now)
        for cookie in loaded + reloaded {
            if let expires = cookie.expires {
                precondition(expires.timeIntervalSince1970 <= TimeInterval(NetscapeCookieFile.latestExpiry), "an expiry past the year 9999")
            }
        }
        _ = HTTPDate.parse(fields.first ?? "")
    }
}
