import CourierCore
@testable import CourierCurl
import FoundationEssentials
import HTTPTypes
import Testing

/// Exposes the pure checks to tests that do not go through a session.
enum RequestValidationProbe {
    static func checkTarget(_ request: HTTPRequest) throws {
        try RequestValidation.checkTarget(request, authority: request.authority ?? "", path: request.path ?? "")
    }
}

@Suite("Framing headers belong to the transport")
struct RequestFramingTests {
    private func fields(_ headers: [(String, String)], method: HTTPRequest.Method = .post, body: Body?) throws -> HTTPFields? {
        var request = HTTPRequest(method: method, scheme: "http", authority: "api.example:8080", path: "/")
        for (name, value) in headers { request.headerFields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return try RequestValidation.headerFields(of: request, authority: "api.example:8080", body: body)
    }

    private func refused(_ headers: [(String, String)], body: Body?) -> InvalidRequestError? {
        #expect(throws: InvalidRequestError.self) { _ = try fields(headers, body: body) }
        do { _ = try fields(headers, body: body) } catch let error as InvalidRequestError { return error } catch {}
        return nil
    }

    static let stream = Body(AsyncStream<ArraySlice<UInt8>> { $0.finish() }, length: .unknown, iterationBehavior: .single)

    @Test func requestsWithoutFramingHeadersAreSentAsTheyAre() throws {
        #expect(try fields([("Accept", "application/json"), ("X-A", "1")], body: Body("hello")) == nil)
    }

    @Test func agreeingFramingHeadersAreLeftToTheTransport() throws {
        let stripped = try #require(try fields([("Content-Length", "5"), ("Host", "API.example:8080"), ("X-A", "1")], body: Body("hello")))
        #expect(stripped[.contentLength] == nil)
        #expect(stripped[HTTPField.Name("Host")!] == nil)
        #expect(stripped[HTTPField.Name("X-A")!] == "1")
        #expect(try fields([("Content-Length", "0")], body: nil)?[.contentLength] == nil)
        #expect(try fields([("Transfer-Encoding", "chunked")], body: Self.stream)?[.transferEncoding] == nil)
        #expect(try fields([("Connection", "close"), ("Connection", "keep-alive")], body: nil) == nil)
    }

    @Test func contradictingFramingHeadersAreRefused() throws {
        let cases: [([(String, String)], Body?)] = [
            ([("Content-Length", "4")], Body("hello")),          // smaller than the body: the rest would be the next request
            ([("Content-Length", "6")], Body("hello")),
            ([("Content-Length", "5")], nil),
            ([("Content-Length", "5, 5")], Body("hello")),
            ([("Content-Length", "-1")], Body("hello")),
            ([("Content-Length", "5")], Self.stream),
            ([("Transfer-Encoding", "chunked")], Body("hello")),  // a known length goes with Content-Length
            ([("Transfer-Encoding", "gzip, chunked")], Self.stream),
            ([("Transfer-Encoding", "chunked")], nil),
            ([("Host", "evil.example")], nil),
            ([("Host", "api.example")], nil),                   // the port is part of the authority
            ([("Upgrade", "websocket")], nil),
            ([("Connection", "Upgrade")], nil),
            ([("Connection", "close, X-Forwarded-For")], nil),  // would make a proxy drop that header
        ]
        for (headers, body) in cases {
            let error = refused(headers, body: body)
            #expect(error?.reason == .conflictingFramingHeader, "\(headers)")
            #expect(error?.input.hasPrefix(headers[0].0) == true)
        }
    }

    /// Through a real session and transport: refused before anything reaches curl.
    @Test func aSessionRefusesASmugglingContentLength() async throws {
        let session = Session(transport: try CurlTransport())
        var request = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:9", path: "/")
        request.headerFields[.contentLength] = "2"
        let error = await #expect(throws: CourierError.self) {
            _ = try await session.send(request, body: Body("hello\r\n\r\nGET /admin HTTP/1.1\r\n"))
        }
        #expect((error?.underlyingError as? InvalidRequestError)?.reason == .conflictingFramingHeader)
    }
}
