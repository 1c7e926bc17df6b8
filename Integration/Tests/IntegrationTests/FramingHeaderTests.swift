import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Framing headers a caller sets, through a real transport to httpbin, which echoes what arrived: the ones
/// that agree with the body and target are sent once, as the transport writes them; a contradicting one
/// is refused before anything is sent.
@Suite("Framing headers on the wire")
struct FramingHeaderTests {
    @Test func agreeingFramingHeadersArriveOnceAndTheBodyIsIntact() async throws {
        let s = session(Servers.httpbin)
        var request = try s.makeRequest(.post, "post")
        request.headerFields[.contentType] = "text/plain"   // else curl labels a POST body as a form
        request.headerFields[.contentLength] = "5"
        request.headerFields[HTTPField.Name("Host")!] = request.authority
        let echoed = try json(try await s.data(for: request, body: Body("hello")))
        #expect(echoed["data"] as? String == "hello")
        let headers = try #require(echoed["headers"] as? [String: String])
        #expect(headers["Content-Length"] == "5")
        #expect(headers["Host"] == request.authority)
    }

    @Test func chunkedAgreesWithAStreamedBody() async throws {
        let s = session(Servers.httpbin)
        var request = try s.makeRequest(.post, "post")
        request.headerFields[.contentType] = "text/plain"
        request.headerFields[.transferEncoding] = "chunked"
        let stream = Body(AsyncStream<ArraySlice<UInt8>> { $0.yield(ArraySlice("hel".utf8)); $0.yield(ArraySlice("lo".utf8)); $0.finish() },
                          length: .unknown, iterationBehavior: .single)
        let echoed = try json(try await s.data(for: request, body: stream))
        #expect(echoed["data"] as? String == "hello")
    }

    @Test func aSmugglingContentLengthIsRefusedAndTheSessionStaysUsable() async throws {
        let s = session(Servers.httpbin)
        var request = try s.makeRequest(.post, "post")
        request.headerFields[.contentLength] = "2"
        let error = await #expect(throws: CourierError.self) {
            _ = try await s.data(for: request, body: Body("hi\r\n\r\nGET /anything/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"))
        }
        #expect((error?.underlyingError as? InvalidRequestError)?.reason == .conflictingFramingHeader)
        let after = try await s.data(for: try s.makeRequest(.get, "get"))
        #expect(after.head.status == .ok)
    }
}
