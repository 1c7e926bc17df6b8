@testable import CourierCurl
import CourierCore
import FoundationEssentials
import HTTPTypes
import Testing

/// Which requests wait for a connection of their own in the curl loop (`HostAdmission`), and in which line:
/// one per scheme, host and port, as libcurl counts connections.
@Suite("Admission key")
struct AdmissionKeyTests {
    /// An evaluator that is not `Hashable`: a connection it verified is never reused.
    struct Unrecognizable: ServerTrustEvaluator {
        func evaluate(_ trust: ServerTrust) throws {}
    }

    private func key(
        _ url: String, trust: (any ServerTrustEvaluator)? = nil, _ configure: (inout CurlTransport.Configuration) -> Void = { _ in }
    ) -> CurlOptions.AdmissionKey? {
        var options = CurlTransport.Configuration()
        configure(&options)
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        let request = HTTPRequest(
            method: .get, scheme: String(parts[0].dropLast()), authority: String(parts[2]), path: "/" + (parts.count > 3 ? parts[3] : "")
        )
        return CurlOptions.admissionKey(of: request, options: options, trustEvaluator: trust)
    }

    @Test func oneLinePerSchemeHostAndPort() {
        let plain = key("http://example.com/a")
        #expect(plain == CurlOptions.AdmissionKey(secure: false, authority: "example.com"))
        #expect(key("http://Example.COM/b") == plain)
        #expect(key("http://example.com:80/c") == plain)
        #expect(key("http://EXAMPLE.com:80/") == plain)
        #expect(key("http://example.com:8080/") == CurlOptions.AdmissionKey(secure: false, authority: "example.com:8080"))
        #expect(key("http://[::1]:80/") == CurlOptions.AdmissionKey(secure: false, authority: "[::1]"))
        let secure = key("https://example.com:443/", { $0.httpVersion = .http1_1 })
        #expect(secure == CurlOptions.AdmissionKey(secure: true, authority: "example.com"))
        #expect(secure != plain, "http and https connections are counted apart")
    }

    @Test func requestsThatMayShareAConnectionGoStraightToLibcurl() {
        #expect(key("https://example.com/") == nil, "ALPN may choose HTTP/2")
        #expect(key("https://example.com/", { $0.multiplexing = false }) != nil)
        #expect(key("https://example.com/", { $0.httpVersion = .http1_1 }) != nil)
        var http2 = CurlTransport.Configuration()
        http2.httpVersion = .http2
        let fresh = CurlOptions.priorKnowledgeNeedsFreshConnection(HTTPRequest(url: URL(string: "http://example.com/")!), options: http2)
        // Before libcurl 8 each prior-knowledge request gets a fresh connection, so it needs a free one.
        #expect((key("http://example.com/", { $0.httpVersion = .http2 }) != nil) == fresh)
        #expect(key("https://example.com/", { $0.httpVersion = .http2 }) == nil)
        #expect(key("https://example.com/", trust: Unrecognizable()) != nil, "a fresh connection per request")
    }

    @Test func libcurlAloneCountsProxiedSocketAndUnlimitedConnections() {
        #expect(key("http://example.com/", { $0.maximumConnectionsPerHost = 0 }) == nil)
        #expect(key("http://example.com/", { $0.proxy = "http://127.0.0.1:3128" }) == nil)
        #expect(key("http://example.com/", { $0.unixSocketPath = "/tmp/socket" }) == nil)
    }
}
