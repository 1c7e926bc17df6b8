import CourierCore
@testable import CourierCurl
import Testing

/// A proxy libcurl cannot use stops the transport at its start, as the setting it is (it failed every call as a
/// connection failure, which a retry policy sent again); the messages never repeat a URL that may hold a password.
@Suite("Proxy settings check")
struct ProxySettingsCheckTests {
    func check(proxy: String?, bypass: [String] = []) throws(TransportError) {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = proxy
        configuration.proxyBypassHosts = bypass
        try ProxySettingsCheck.check(configuration)
    }

    @Test(arguments: [nil, "", "http://127.0.0.1:3128", "HTTP://proxy.example:3128", "127.0.0.1:3128", "proxy.example",
                      "https://user:p%40ss@proxy.example", "socks4://127.0.0.1:1080", "socks4a://h:1", "socks5://h:1",
                      "socks5h://user:secret@[::1]:1080", "http://[::1]:8080/ignored/path"] as [String?])
    func proxiesLibcurlCanUsePass(proxy: String?) throws {
        try check(proxy: proxy)
    }

    @Test(arguments: ["http://[::1", "http://127.0.0.1:99999", "http://user:pa ss@127.0.0.1:1", " http://127.0.0.1:1",
                      "http://127.0.0.1:1 ", "ftp://127.0.0.1:21", "socks9://127.0.0.1:1", "file:///tmp/proxy",
                      "http://a b"])
    func proxiesLibcurlCannotUseFailUnsupported(proxy: String) {
        #expect {
            try check(proxy: proxy)
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.code == .unsupported && error.message.contains("proxy") && !error.message.contains(proxy)
        }
    }

    @Test func aPasswordInAProxyThatFailsIsNotRepeated() throws {
        let error = try #require(throws: TransportError.self) { try check(proxy: "gopher://user:hunter2@proxy.example:70") }
        #expect(!error.message.contains("hunter2"), "\(error.message)")
        #expect(error.message.contains("\"gopher\""), "\(error.message)")
    }

    @Test func bypassHostsAreOneHostEach() throws {
        try check(proxy: "http://proxy.example", bypass: ["example.com", ".internal", "10.0.0.0/8", "::1"])
        try check(proxy: "http://proxy.example", bypass: ["*"])
        for entry in ["", "a,b", "a b", "a\tb", "a\u{7F}b", "*"] {
            #expect(throws: TransportError.self, "\(entry.debugDescription)") {
                try check(proxy: "http://proxy.example", bypass: ["example.com", entry])
            }
        }
    }

    /// The transport itself refuses to start with such a proxy.
    @Test func theTransportDoesNotStart() {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = "socks9://127.0.0.1:1"
        #expect(throws: TransportError.self) { _ = try CurlTransport(configuration: configuration) }
    }
}
