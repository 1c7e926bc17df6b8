@testable import CourierCurl
import HTTPTypes
import Testing

/// How an HTTP/1 response's body ends (RFC 9112 section 6.3): only one that ends with its connection needs the
/// server's close_notify over TLS (`ChaosTests.aBodyEndingWithItsConnectionIsWholeOnlyAfterCloseNotify`).
@Suite("Body framing")
struct BodyFramingTests {
    func framing(
        _ fields: [(HTTPField.Name, String)], status: Int = 200, method: HTTPRequest.Method = .get
    ) -> BodyFraming {
        var headerFields = HTTPFields()
        for (name, value) in fields { headerFields.append(HTTPField(name: name, value: value)) }
        let head = HTTPResponse(status: .init(code: status), headerFields: headerFields)
        return BodyFraming.of(head, method: method, reading: ContentLengthCheck.read(head.headerFields))
    }

    @Test func aBodyWithNeitherLengthNorChunksEndsWithTheConnection() {
        #expect(framing([]) == .connectionEnd)
        #expect(framing([(.contentType, "text/plain"), (.connection, "close")]) == .connectionEnd)
        #expect(framing([], status: 404) == .connectionEnd)
        #expect(framing([], status: 200, method: .post) == .connectionEnd)
    }

    @Test func aLengthOrALastChunkedCodingFramesTheBody() {
        #expect(framing([(.contentLength, "10")]) == .length)
        #expect(framing([(.contentLength, "0")]) == .length)
        #expect(framing([(.transferEncoding, "chunked")]) == .chunked)
        #expect(framing([(.transferEncoding, "gzip, Chunked")]) == .chunked)
        #expect(framing([(.transferEncoding, "gzip"), (.transferEncoding, " chunked ")]) == .chunked)
        #expect(framing([(.transferEncoding, "chunked"), (.contentLength, "10")]) == .chunked)
    }

    /// A transfer coding that is not chunked, last, leaves the body to end with the connection (rule 3), whatever a
    /// `Content-Length` beside it says.
    @Test func aLastCodingOtherThanChunkedEndsWithTheConnection() {
        #expect(framing([(.transferEncoding, "gzip")]) == .connectionEnd)
        #expect(framing([(.transferEncoding, "chunked, gzip")]) == .connectionEnd)
        #expect(framing([(.transferEncoding, "chunked"), (.transferEncoding, "gzip")]) == .connectionEnd)
        #expect(framing([(.transferEncoding, "gzip"), (.contentLength, "10")]) == .connectionEnd)
        #expect(framing([(.transferEncoding, "")]) == .connectionEnd)
        #expect(framing([(.transferEncoding, "chunked, ")]) == .chunked)
    }

    /// Codings are compared as ASCII in any case, between spaces and tabs: a `K` that is the Kelvin sign, which
    /// lowercases to `k`, is not `chunked` (libcurl reads bytes, and frames such a body by the connection's end).
    @Test func theLastCodingIsReadAsASCII() {
        #expect(framing([(.transferEncoding, "CHUNKED")]) == .chunked)
        #expect(framing([(.transferEncoding, "\tgzip ,\tchunked\t")]) == .chunked)
        #expect(framing([(.transferEncoding, "chun\u{212A}ed")]) == .connectionEnd)
        #expect(framing([(.transferEncoding, "chunked,,")]) == .chunked)
        #expect(framing([(.transferEncoding, "chunked"), (.transferEncoding, ", ,")]) == .chunked)
        #expect(framing([(.transferEncoding, "xchunked")]) == .connectionEnd)
    }

    /// Only an HTTP/1 body can end with its connection: HTTP/2 ends every body with its stream.
    @Test func onlyAnHTTP1BodyEndsWithItsConnection() {
        let head = HTTPResponse(status: .ok)
        for (version, expected) in [("HTTP/1.1", true), ("HTTP/1.0", true), ("HTTP/2", false), ("HTTP/3", false), ("", false)] {
            #expect(BodyFraming.endsWithConnection(head, version: version, method: .get, reading: .none) == expected, "\(version)")
        }
        #expect(!BodyFraming.endsWithConnection(head, version: "HTTP/1.1", method: .head, reading: .none))
        #expect(!BodyFraming.endsWithConnection(head, version: "HTTP/1.1", method: .get, reading: .count(0)))
    }

    /// The answer to a HEAD, a 1xx, a 204 and a 304 has no body, whatever its fields say (rule 1).
    @Test(arguments: [(200, HTTPRequest.Method.head), (204, .get), (304, .get), (103, .get), (100, .post)])
    func someAnswersHaveNoBody(status: Int, method: HTTPRequest.Method) {
        #expect(framing([], status: status, method: method) == BodyFraming.none)
        #expect(framing([(.transferEncoding, "gzip")], status: status, method: method) == BodyFraming.none)
    }
}
