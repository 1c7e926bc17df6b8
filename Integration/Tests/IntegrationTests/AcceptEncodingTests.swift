import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// The `Accept-Encoding` the transport sends, as httpbin received it (gunicorn joins repeated fields with ",", so a
/// line sent twice would show), over HTTP/1.1 and over HTTP/2 through nginx: every coding Courier decodes unless the
/// request names its own, none with decoding off, and exactly one line whatever the request's other fields and
/// whatever the previous request on the pooled handle carried.
@Suite("Accept-Encoding on the wire")
struct AcceptEncodingTests {
    static let everyCoding = "gzip, deflate, br, zstd"

    /// What arrived at httpbin's `/headers` for `fields`.
    func received(_ s: Session, _ fields: [(String, String)]) async throws -> [String: String] {
        var request = try s.makeRequest(.get, "headers")
        for (name, value) in fields { request.headerFields[HTTPField.Name(name)!] = value }
        let echoed = try json(try await s.data(for: request))
        return try #require(echoed["headers"] as? [String: String])
    }

    @Test(arguments: [false, true])
    func everyCodingUnlessTheRequestNamesItsOwn(http2: Bool) async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let s = session(http2 ? Servers.tls : Servers.httpbin, transport: t)
        // In turn on one transport, so requests with and without their own lines reuse the same handles.
        let cases: [(fields: [(String, String)], expected: String)] = [
            ([], Self.everyCoding),
            ([("Accept-Encoding", "identity")], "identity"),
            ([("X-One", "1"), ("X-Two", "2")], Self.everyCoding),
            ([("accept-encoding", "gzip")], "gzip"),
            ([], Self.everyCoding),
            ([("X-One", "1"), ("Accept-Encoding", "br")], "br"),
            ([("X-One", "1")], Self.everyCoding),
        ]
        for round in 0..<2 {
            for (fields, expected) in cases {
                let headers = try await received(s, fields)
                #expect(headers["Accept-Encoding"] == expected, "round \(round), fields \(fields)")
                for (name, value) in fields where name.lowercased() != "accept-encoding" {
                    #expect(headers[name] == value, "round \(round), fields \(fields)")
                }
            }
        }
        await t.shutdown()
    }

    @Test func manyCallsAtOnceEachSendOneLine() async throws {
        let t = try transport { _ in }
        let s = session(Servers.httpbin, transport: t)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<48 {
                group.addTask {
                    let own = index % 3 == 0
                    let headers = try await received(s, own ? [("Accept-Encoding", "zstd")] : [("X-Index", "\(index)")])
                    #expect(headers["Accept-Encoding"] == (own ? "zstd" : Self.everyCoding), "call \(index)")
                }
            }
            try await group.waitForAll()
        }
        await t.shutdown()
    }

    @Test func noneWithDecodingOff() async throws {
        let t = try transport { $0.automaticDecompression = false }
        let s = session(Servers.httpbin, transport: t)
        #expect(try await received(s, [])["Accept-Encoding"] == nil)
        #expect(try await received(s, [("Accept-Encoding", "gzip")])["Accept-Encoding"] == "gzip")
        await t.shutdown()
    }

    /// The line still decodes what it advertises: a gzip body from the compression server, whole.
    @Test func aGzipBodyArrivesDecoded() async throws {
        let t = try transport { _ in }
        let s = session(Servers.compression, transport: t)
        let response = try await s.data(for: try s.makeRequest(.get, "compressed?encoding=gzip&size=64k&ratio=4"))
        #expect(response.status == .ok)
        #expect(response.data.count == 64 * 1024)
        await t.shutdown()
    }
}
