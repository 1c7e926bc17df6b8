import CCurl
import CourierCore
@testable import CourierCurl
import Testing

/// Which handshakes behind an HTTPS proxy are the proxy's (the live tests, against the test proxy behind TLS, are in
/// Integration/Tests/IntegrationTests/ProxyTests+TrustEvaluator.swift).
@Suite("Proxy handshake")
struct ProxyHandshakeTests {
    @Test func onlyAnHTTPSProxyWithoutAUnixSocketCounts() {
        for proxy in ["https://127.0.0.1:8443", "HTTPS://proxy.example", "hTtPs://user:secret@proxy.example:1"] {
            #expect(ProxyHandshake.surelyThroughHTTPSProxy(host: "example.com", proxy: proxy, bypassHosts: [], unixSocketPath: nil), "\(proxy)")
            #expect(!ProxyHandshake.surelyThroughHTTPSProxy(host: "example.com", proxy: proxy, bypassHosts: [], unixSocketPath: "/run/s.sock"), "\(proxy)")
            #expect(!ProxyHandshake.surelyThroughHTTPSProxy(host: "example.com", proxy: proxy, bypassHosts: ["*"], unixSocketPath: nil), "\(proxy)")
        }
        for proxy in [nil, "", "https", "http://127.0.0.1:3128", "proxy.example:443", "socks5h://127.0.0.1:1080", "httpsx://p"] {
            #expect(!ProxyHandshake.surelyThroughHTTPSProxy(host: "example.com", proxy: proxy, bypassHosts: [], unixSocketPath: nil), "\(proxy ?? "nil")")
        }
    }

    /// The proxy's handshake comes before a 2xx answer to the tunnel's `CONNECT` (none yet, or a refusal such as 407
    /// before libcurl tries again); the server's after one, and after a proxy's handshake: a 2xx left from an earlier
    /// connection of the transfer does not make the next connection's proxy handshake the server's.
    @Test func aHandshakeIsTheServersOnlyAfterA2xxAnswerAndTheProxys() {
        for code in [0, 100, 199, 300, 403, 407, 502] {
            #expect(ProxyHandshake.isProxys(connectCode: code, awaitingServer: true), "\(code)")
            #expect(ProxyHandshake.isProxys(connectCode: code, awaitingServer: false), "\(code)")
        }
        for code in [200, 204, 299] {
            #expect(!ProxyHandshake.isProxys(connectCode: code, awaitingServer: true), "\(code)")
            #expect(ProxyHandshake.isProxys(connectCode: code, awaitingServer: false), "a stale \(code)")
        }
    }

    /// The cases of libcurl's rules and the looser ones Courier adds: a suffix without a dot before it, any address
    /// entry for an address, names libcurl might convert.
    static let cases: [(host: String, entries: [String], might: Bool)] = [
        ("example.com", [], false),
        ("example.com", ["*"], true),
        ("example.com", ["example.com"], true),
        ("api.example.com", ["example.com"], true),
        ("api.example.com", [".example.com"], true),
        ("example.com", ["example.com."], true),
        ("example.com.", ["example.com"], true),
        ("EXAMPLE.com", ["example.COM"], true),
        ("example.com", ["other.com", "example.com"], true),
        ("example.com", ["other.com"], false),
        ("example.com", ["api.example.com"], false),
        ("notexample.com", ["example.com"], true),
        ("example.com", ["."], true),
        ("127.0.0.1", ["localhost"], false),
        ("localhost", ["127.0.0.1"], false),
        ("127.0.0.1", ["127.0.0.1"], true),
        ("127.0.0.1", ["127.0.0.0/8"], true),
        ("127.0.0.1", ["10.0.0.0/8"], true),
        ("127.0.0.1", ["::1"], true),
        ("::1", ["::1"], true),
        ("::1", ["::/0"], true),
        ("::1", ["example.com"], false),
        ("bücher.example", ["other.example"], true),
        ("xn--bcher-kva.example", ["other.example"], true),
        ("example.com", ["bücher.example"], true),
        ("ex%61mple.com", ["other.example"], true),
        // libcurl reads these as 127.0.0.1 and 10.0.0.1 before it looks at the list.
        ("0x7f000001", ["127.0.0.1"], true),
        ("0x7f.1", ["127.0.0.1"], true),
        ("0177.0.0.1", ["127.0.0.1"], true),
        ("127.1", ["127.0.0.1"], true),
        ("2130706433", ["127.0.0.1"], true),
        ("0x0a000001", ["10.0.0.0/8"], true),
        ("0x7f000001", ["example.com"], false),
        ("0x7f.0x0.0x0.0x1", ["127.0.0.1"], true),
        // Names of hexadecimal letters are names: libcurl sends them through the proxy.
        ("dfb.de", ["127.0.0.1"], false),
        ("cafe.be", ["10.0.0.0/8"], false),
        ("deadbeef", ["127.0.0.1"], false),
        ("1.2.3.4.5", ["127.0.0.1"], false),
    ]

    @Test func mightBypassIsLooserThanLibcurlsRules() {
        for (host, entries, might) in Self.cases {
            #expect(ProxyHandshake.mightBypass(host: host, entries: entries) == might, "\(host) \(entries)")
        }
    }

    /// libcurl itself as the oracle: for every case where it sends the request straight to the host rather than to the
    /// proxy, `mightBypass` says so. libcurl is asked to open a socket (for the proxy's port or the host's), and the
    /// socket callback refuses, so nothing connects; names resolve to the loopback address through `CURLOPT_RESOLVE`.
    @Test func whateverLibcurlBypassesMightBypassToo() throws {
        var checked = 0
        for (host, entries, _) in Self.cases where !host.contains("%") {
            let bypassed = try Self.libcurlBypasses(host: host, entries: entries)
            if bypassed {
                checked += 1
                #expect(ProxyHandshake.mightBypass(host: host, entries: entries), "libcurl bypasses \(host) for \(entries)")
            }
        }
        #expect(checked >= 10, "libcurl bypassed only \(checked) cases: the oracle is not working")
    }

    /// Whether libcurl 7.88 connects to `host` itself rather than to a proxy, with `entries` as `CURLOPT_NOPROXY`.
    static func libcurlBypasses(host: String, entries: [String]) throws -> Bool {
        let easy = try #require(curl_easy_init())
        defer { curl_easy_cleanup(easy) }
        let target = host.contains(":") ? "[\(host)]" : host
        let port = Box(0)
        let opened: @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>?) -> curl_socket_t = { user, _, address in
            guard let user, let address else { return -1 }
            let family = Int32(address.pointee.family)
            let port = withUnsafeBytes(of: address.pointee.addr) { bytes -> UInt16 in
                // sin_port and sin6_port both follow the two bytes of the family.
                UInt16(bytes[2]) << 8 | UInt16(bytes[3])
            }
            Unmanaged<Box<Int>>.fromOpaque(user).takeUnretainedValue().value = family == AF_INET || family == AF_INET6 ? Int(port) : -1
            return -1
        }
        var resolve: UnsafeMutablePointer<curl_slist>?
        let isAddress = host.contains(":") || host.allSatisfy { $0 == "." || $0.isNumber }
        for name in [host, "xn--bcher-kva.example"] where !isAddress {
            resolve = curl_slist_append(resolve, "\(name):7:127.0.0.1")
        }
        defer { curl_slist_free_all(resolve) }
        let proxy = "http://127.0.0.1:9"
        let url = "http://\(target):7/"
        let noProxy = entries.joined(separator: ",")
        #expect(ccurl_easy_setopt_string(easy, CURLOPT_URL, url) == CURLE_OK, "\(url)")
        _ = ccurl_easy_setopt_string(easy, CURLOPT_PROXY, proxy)
        _ = ccurl_easy_setopt_string(easy, CURLOPT_NOPROXY, noProxy)
        _ = ccurl_easy_setopt_slist(easy, CURLOPT_RESOLVE, resolve)
        _ = ccurl_easy_setopt_opensocket_function(easy, opened, Unmanaged.passUnretained(port).toOpaque())
        let result = withExtendedLifetime(port) { curl_easy_perform(easy) }
        // A name libcurl refuses to send at all (7.88 takes no non-ASCII host in a URL) goes nowhere.
        let refused = result == CURLE_URL_MALFORMAT && host.utf8.contains { $0 >= 0x80 }
        #expect(port.value == 7 || port.value == 9 || refused, "\(host) \(entries): libcurl opened no socket for either (\(result.rawValue))")
        return port.value == 7
    }

    /// After the hook let a handshake pass as the proxy's, a connection whose server handshake it never judged is
    /// refused: libcurl went to the server without the tunnel, and the evaluator never saw its certificate.
    @Test func aConnectionAfterAProxysHandshakeAloneIsRefused() throws {
        struct Anything: ServerTrustEvaluator { func evaluate(_ trust: ServerTrust) throws {} }
        let easy = try #require(curl_easy_init())
        defer { curl_easy_cleanup(easy) }
        let proxied = TrustHook(evaluator: Anything(), host: "example.com", url: "https://example.com/", throughHTTPSProxy: true)
        #expect(proxied.mayUseConnection())
        // A fresh handle has had no answer to a `CONNECT` (0): the handshake is the proxy's, and the hook leaves the
        // context alone (none is given here).
        let passed = TrustHook.contextCallback(easy, nil, Unmanaged.passUnretained(proxied).toOpaque())
        #expect(passed == CURLE_OK)
        #expect(!proxied.mayUseConnection())
        #expect((proxied.rejection as? TransportError)?.code == .tlsFailure)

        // Not surely through a proxy: every handshake is the server's, judged (here it fails, with no context to judge
        // in), and nothing waits for another.
        let direct = TrustHook(evaluator: Anything(), host: "example.com", url: "https://example.com/")
        #expect(TrustHook.contextCallback(easy, nil, Unmanaged.passUnretained(direct).toOpaque()) == CURLE_SSL_CONNECT_ERROR)
        #expect(direct.mayUseConnection())
    }
}

/// A value a C callback writes through a pointer. Tests only, on one thread.
private final class Box<Value>: @unchecked Sendable {
    // @unchecked: written by libcurl's callback on the test's own thread, inside `curl_easy_perform`, and read after.
    var value: Value
    init(_ value: Value) { self.value = value }
}
