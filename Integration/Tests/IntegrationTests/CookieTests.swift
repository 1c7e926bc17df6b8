import CourierCookies
import CourierCore
import Foundation
import HTTPTypes
import Testing

/// `CookieJar` and `CookieInterceptor` against httpbin (`/cookies/set` sets cookies on a redirect to `/cookies`,
/// which echoes the cookies it received), and its cookie files read and written by the `curl` tool.
@Suite("Cookies")
struct CookieTests {
    private func api(_ jar: CookieJar) -> Session {
        session { $0.networkInterceptors = [CookieInterceptor(jar: jar)] }
    }

    /// httpbin's `{"cookies": {...}}`.
    private func echoed(_ data: Data) throws -> [String: String] {
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["cookies"] as? [String: String])
    }

    private func temporaryFile() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("courier-cookies-\(UUID().uuidString)").path
    }

    @Test func aCookieSetOnARedirectHopGoesToTheNextHopAndLaterCalls() async throws {
        let jar = CookieJar()
        let set = try await api(jar).data(.get, "cookies/set?flavor=oatmeal&n=1")
        #expect(set.status == .ok && set.history.count == 1)   // 302 to /cookies, which already saw them
        #expect(try echoed(set.data) == ["flavor": "oatmeal", "n": "1"])
        let deleted = try await api(jar).data(.get, "cookies/delete?flavor")
        #expect(try echoed(deleted.data) == ["n": "1"])
        #expect(jar.allCookies.map(\.name) == ["n"])
    }

    @Test func curlSendsTheCookiesCourierWrote() async throws {
        let jar = CookieJar()
        _ = try await api(jar).data(.get, "cookies/set?theme=dark&sid=abc123")
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        try jar.write(netscapeFile: file)
        let (status, output) = try await runProcess("/usr/bin/curl", ["-sS", "--max-time", "10", "-b", file, "\(Servers.httpbin)/cookies"])
        #expect(status == 0)
        #expect(try echoed(output) == ["theme": "dark", "sid": "abc123"])
    }

    @Test func courierSendsTheCookiesCurlWrote() async throws {
        let file = temporaryFile()
        defer { try? FileManager.default.removeItem(atPath: file) }
        let (status, _) = try await runProcess("/usr/bin/curl", ["-sS", "--max-time", "10", "-L", "-c", file, "-o", "/dev/null", "\(Servers.httpbin)/cookies/set?lang=swift&v=6"])
        #expect(status == 0)
        let jar = try CookieJar(netscapeFile: file)
        #expect(Set(jar.allCookies.map(\.name)) == ["lang", "v"])
        let echo = try await api(jar).data(.get, "cookies")
        #expect(try echoed(echo.data) == ["lang": "swift", "v": "6"])
        // And back: what Courier writes after adding one, curl reads whole.
        _ = try await api(jar).data(.get, "cookies/set?extra=1")
        try jar.write(netscapeFile: file)
        let (again, output) = try await runProcess("/usr/bin/curl", ["-sS", "--max-time", "10", "-b", file, "\(Servers.httpbin)/cookies"])
        #expect(again == 0)
        #expect(try echoed(output) == ["lang": "swift", "v": "6", "extra": "1"])
    }

    /// A cookie bomb: five cookies of 3,000 bytes set by httpbin for 127.0.0.1 (cookies ignore ports), then a call
    /// to nginx on the same host. nginx refuses a `Cookie` field past its 8 KiB header buffer (`400 Request Header
    /// Or Cookie Too Large`, as curl shows with all five in one field); the jar sends what fits, and the call
    /// succeeds.
    @Test func aCookieBombDoesNotLockTheClientOutOfTheSite() async throws {
        let jar = CookieJar()
        let big = String(repeating: "x", count: 3000)
        for index in 0..<5 {
            _ = try await api(jar).data(.get, "response-headers?Set-Cookie=bomb\(index)%3D\(big)")
        }
        #expect(jar.allCookies.count == 5)
        let nginx = session(Servers.nginx) { $0.networkInterceptors = [CookieInterceptor(jar: jar)] }
        let response = try await nginx.data(.get, "json")
        #expect(response.status == .ok)
        let all = jar.allCookies.map(\.pair).joined(separator: "; ")
        let (status, output) = try await runProcess("/usr/bin/curl", ["-sS", "--max-time", "10", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Cookie: \(all)", "\(Servers.nginx)/json"])
        #expect(status == 0 && String(decoding: output, as: UTF8.self) == "400")
    }

    @Test(arguments: [false, true])
    func cookiesGoInOneFieldOverHTTP1AndHTTP2(tls: Bool) async throws {
        // swift-http-types splits `Cookie` into one field per cookie; two Cookie fields on HTTP/1.1 reach the
        // server as "a=1, b=2" (found by the curl interop test above).
        let base = tls ? Servers.tls : Servers.httpbin
        var request = try session(base).makeRequest(.get, "cookies")
        request.headerFields[.cookie] = "a=1; b=two"
        let s = tls ? session(base, transport: try transport { $0.certificateAuthorityFile = Servers.caFile }) : session(base)
        let response = try await s.data(for: request)
        #expect(try echoed(response.data) == ["a": "1", "b": "two"])
    }
}
