import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Base URL resolution (behaviour-spec item 108)")
struct BaseURLTests {
    let session = Session(
        configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:5000/v1")),
        transport: MockTransport(always: .status(.ok))
    )

    @Test func baseWithAPathGainsATrailingSlash() {
        #expect(session.baseURL?.absoluteString == "http://127.0.0.1:5000/v1/")
    }

    @Test func baseWithoutAPathIsKept() throws {
        let bare = Session(configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:5000")), transport: MockTransport(always: .status(.ok)))
        #expect(bare.baseURL?.absoluteString == "http://127.0.0.1:5000")
        #expect(try bare.makeRequest(.get, "foo").url?.absoluteString == "http://127.0.0.1:5000/foo")
    }

    @Test(arguments: [
        ("foo", "http://127.0.0.1:5000/v1/foo"),
        ("/foo", "http://127.0.0.1:5000/foo"),
        ("foo?bar=baz", "http://127.0.0.1:5000/v1/foo?bar=baz"),
        ("foo/", "http://127.0.0.1:5000/v1/foo/"),
        ("http://example2.com/", "http://example2.com/"),
        ("../x", "http://127.0.0.1:5000/x"),
        ("./a/./b/../c", "http://127.0.0.1:5000/v1/a/c"),
        ("?q=1", "http://127.0.0.1:5000/v1/?q=1"),
        ("", "http://127.0.0.1:5000/v1/"),
        ("//other.test/p", "http://other.test/p"),
    ])
    func resolvesPerRFC3986(path: String, expected: String) throws {
        #expect(try session.makeRequest(.get, path).url?.absoluteString == expected)
    }

    @Test func requestCarriesSchemeAuthorityAndPath() throws {
        let request = try session.makeRequest(.get, "foo?bar=baz")
        #expect(request.scheme == "http")
        #expect(request.authority == "127.0.0.1:5000")
        #expect(request.path == "/v1/foo?bar=baz")
    }

    @Test(arguments: ["ftp://x.test/a", "mailto:someone@x.test"])
    func nonHTTPSchemesAreRefused(path: String) {
        #expect {
            _ = try session.makeRequest(.get, path)
        } throws: { error in
            let error = error as? CourierError
            return error?.stage == .requestSerialization
                && (error?.underlyingError as? InvalidRequestError)?.reason == .unsupportedScheme
        }
    }

    @Test(arguments: ["relative/path", "http://", "ht tp://x", "http://[::1"])
    func malformedURLsWithoutBaseAreRefused(path: String) {
        let bare = Session(transport: MockTransport(always: .status(.ok)))
        #expect {
            _ = try bare.makeRequest(.get, path)
        } throws: { error in
            let reason = ((error as? CourierError)?.underlyingError as? InvalidRequestError)?.reason
            return reason == .malformedURL || reason == .unsupportedScheme
        }
    }
}
