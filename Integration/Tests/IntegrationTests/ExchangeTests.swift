import Courier
import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Plain exchanges against httpbin: methods, bodies, headers, decompression, metrics.
@Suite("Exchanges")
struct ExchangeTests {
    @Test func getReturnsTheEchoAndMetrics() async throws {
        let response = try await session().get("get?q=1").response
        #expect(response.status == .ok)
        let echo = try json(response)
        #expect((echo["args"] as? [String: String])?["q"] == "1")
        let metrics = try #require(response.metrics)
        #expect(metrics.httpVersion == "HTTP/1.1")
        #expect(metrics.bytesReceived == Int64(response.data.count))
        #expect(metrics.remoteAddress?.hasPrefix("127.0.0.1:") == true)
        #expect((metrics.total ?? .zero) > .zero)
        #expect((metrics.firstByte ?? .zero) <= (metrics.total ?? .zero))
    }

    @Test func headHasNoBody() async throws {
        let response = try await session().head("get").response
        #expect(response.status == .ok)
        #expect(response.data.isEmpty)
        #expect(response.head.headerFields[.contentLength] != nil)
    }

    @Test(arguments: [HTTPRequest.Method.put, .patch, .delete, .post])
    func bodyMethodsSendTheirBody(method: HTTPRequest.Method) async throws {
        let path = method.rawValue.lowercased()
        let request = try session().makeRequest(method, path, headers: [.contentType: "text/plain"])
        let response = try await session().data(for: request, body: Body("payload \(method)"))
        let echo = try json(response)
        #expect(echo["data"] as? String == "payload \(method)")
        #expect((echo["headers"] as? [String: String])?["Content-Length"] == "\(8 + method.rawValue.count)")
    }

    @Test func streamedBodyOfUnknownLengthIsChunked() async throws {
        let (body, writer) = Body.makeStream(length: .unknown)
        Task {
            for index in 0..<5 {
                writer.yield(Data("part\(index);".utf8))
                try? await Task.sleep(for: .milliseconds(10))
            }
            writer.finish()
        }
        let request = try session().makeRequest(.post, "post", headers: [.contentType: "text/plain"])
        let response = try await session().data(for: request, body: body)
        let echo = try json(response)
        #expect(echo["data"] as? String == "part0;part1;part2;part3;part4;")
        #expect((echo["headers"] as? [String: String])?["Transfer-Encoding"] == "chunked")
    }

    @Test func streamedBodyOfKnownLengthSendsContentLength() async throws {
        let bytes = Data((0..<300_000).map { UInt8($0 % 251) })
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + 65_536, bytes.count)
                continuation.yield(ArraySlice(bytes[offset..<end]))
                offset = end
            }
            continuation.finish()
        }
        let body = Body(chunks, length: .known(Int64(bytes.count)), iterationBehavior: .single)
        let request = try session().makeRequest(.put, "put", headers: [.contentType: "application/octet-stream"])
        let response = try await session().data(for: request, body: body)
        let echo = try json(response)
        #expect((echo["headers"] as? [String: String])?["Content-Length"] == "300000")
        let sent = try #require((echo["data"] as? String).flatMap { $0.split(separator: ",").last }.flatMap { Data(base64Encoded: String($0)) })
        #expect(sent == bytes)
    }

    @Test func headersAreSentAsGiven() async throws {
        let custom = HTTPField.Name("X-Courier-Test")!
        let response = try await session().get("headers", headers: [custom: "value 1", .userAgent: "courier-tests/1"]).response
        let headers = try #require(try json(response)["headers"] as? [String: String])
        #expect(headers["X-Courier-Test"] == "value 1")
        #expect(headers["User-Agent"] == "courier-tests/1")
        #expect(headers["Expect"] == nil)
    }

    @Test(arguments: ["gzip", "deflate", "brotli"])
    func compressedBodiesAreDecoded(encoding: String) async throws {
        let response = try await session().get(encoding).response
        let echo = try json(response)
        let flag = encoding == "gzip" ? "gzipped" : encoding == "deflate" ? "deflated" : "brotli"
        #expect(echo[flag] as? Bool == true)
    }

    @Test func zstdBodiesAreDecoded() async throws {
        let response = try await session(Servers.fault).get("zstd").response
        #expect(response.head.headerFields[.contentEncoding] == "zstd")
        #expect(try json(response)["compressed"] as? String == "zstd")
        #expect(response.data.count > 4000)  // 60 bytes on the wire
    }

    @Test func statusCodesAreReturnedAsResponses() async throws {
        for code in [200, 204, 404, 500] {
            let response = try await session().get("status/\(code)").response
            #expect(response.status.code == code)
        }
    }

    @Test func connectionRefusedIsCannotConnect() async throws {
        await #expect {
            _ = try await session("http://127.0.0.1:9").get("x").response
        } throws: { transportCode($0) == .cannotConnect }
    }
}

/// The umbrella's ready-made session.
@Suite("Session.shared")
struct SharedSessionTests {
    @Test func sharedSessionSpeaksCurlWithAFNetworkingsSerializer() async throws {
        let response = try await Session.shared.get("\(Servers.httpbin)/get", parameters: ["q": "shared", "n": 2]).response
        #expect(response.status == .ok)
        let args = try #require(try json(response)["args"] as? [String: String])
        #expect(args == ["n": "2", "q": "shared"])
        let form = try await Session.shared.post("\(Servers.httpbin)/post", parameters: ["key": "value"]).response
        #expect((try json(form)["form"] as? [String: String])?["key"] == "value")
    }

    @Test func sharedSessionValidatesAsAFHTTPResponseSerializerDoes() async throws {
        // A handle's value() is the body's bytes for a 2xx, whatever its type...
        let bytes = try await Session.shared.get("\(Servers.httpbin)/bytes/1000", parameters: ["seed": 7]).value()
        #expect((bytes as? Data)?.count == 1000)
        // ...and a typed validation error, which names the status, otherwise.
        await #expect {
            _ = try await Session.shared.get("\(Servers.httpbin)/status/404").value()
        } throws: { ($0 as? CourierError)?.unacceptableStatus == .notFound }
    }
}
