import CourierCore
import CourierCurl
import CourierOpenAPI
import Foundation
import HTTPBinAPI
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The client swift-openapi-generator made from Integration/OpenAPI/HTTPBinAPI/openapi.yaml, calling httpbin
/// through `CourierClientTransport` on the curl transport: parameters in query and path, JSON both ways, a
/// streamed upload and a streamed download (checked against the `curl` tool), an undocumented status, and the
/// session's chain on every call.
@Suite("OpenAPI client")
struct OpenAPIClientTests {
    /// Stamps every request, to show the session's interceptors run under the generated client.
    struct Stamp: Interceptor {
        func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
            var request = request
            request.headerFields[HTTPField.Name("X-Courier-Chain")!] = "stamped"
            return try await next(request, body: body, context: context)
        }
    }

    private func client() -> Client {
        let session = session { $0.interceptors = [Stamp()] }
        return Client(serverURL: URL(string: Servers.httpbin)!, transport: CourierClientTransport(session: session))
    }

    @Test func queryParametersAndTheChain() async throws {
        let echo = try await client().getEcho(query: .init(name: "Ada Lovelace", count: 3, tags: ["a", "b&c"])).ok.body.json
        let args = echo.args.additionalProperties.value
        #expect(args["name"] as? String == "Ada Lovelace")
        #expect(args["count"] as? String == "3")
        #expect(args["tags"] as? [String] == ["a", "b&c"])
        #expect(echo.headers.additionalProperties["X-Courier-Chain"] == "stamped")
    }

    @Test func pathParameters() async throws {
        let echo = try await client().getItem(path: .init(item: "widget 42"), query: .init(verbose: true)).ok.body.json
        #expect(echo.url.hasSuffix("/anything/widget%2042?verbose=true"))
    }

    @Test func jsonBothWays() async throws {
        let echo = try await client().postGreeting(body: .json(.init(message: "héllo, wörld", count: 7))).ok.body.json
        #expect(echo.json == .init(message: "héllo, wörld", count: 7))
        #expect(echo.headers.additionalProperties["Content-Type"] == "application/json; charset=utf-8")
    }

    @Test func aStreamedUploadOfUnknownLength() async throws {
        let chunk = String(repeating: "0123456789abcdef", count: 4096)   // 64 KiB
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let sending = Task { try await client().uploadBytes(body: .binary(HTTPBody(stream, length: .unknown))) }
        for _ in 0..<16 { continuation.yield(chunk) }
        continuation.finish()
        let echo = try await sending.value.ok.body.json
        #expect(echo.data.utf8.count == 16 * 65_536)
        #expect(echo.data == String(repeating: chunk, count: 16))
    }

    /// httpbin's `/range/N` streams `a`…`z` repeating, at most 100 KiB, `chunk_size` bytes per write; tiny chunks
    /// make many reads. Its bytes do not depend on other requests (`/stream-bytes?seed=` does: httpbin's threads
    /// share one random generator, so two streams at once interleave their sequences).
    @Test(arguments: [(1, 8192), (20_000, 7), (102_400, 8192)])
    func aStreamedDownloadMatchesCurl(count: Int, chunkSize: Int) async throws {
        let body = try await client().streamBytes(path: .init(count: count), query: .init(chunk_size: chunkSize)).ok.body.binary
        var received = Data()
        for try await piece in body { received.append(contentsOf: piece) }
        let (status, expected) = try await runProcess("/usr/bin/curl", ["-sS", "--max-time", "30", "\(Servers.httpbin)/range/\(count)?chunk_size=\(chunkSize)"])
        #expect(status == 0)
        #expect(received.count == count)
        #expect(received == expected)
        #expect(received == Data((0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }))
    }

    @Test func anUndocumentedStatusReachesTheCaller() async throws {
        switch try await client().status(path: .init(code: 418)) {
        case .undocumented(let status, _): #expect(status == 418)
        case .ok: Issue.record("418 was read as 200")
        }
        _ = try await client().status(path: .init(code: 200)).ok
    }

    @Test func aFailureCarriesTheCourierError() async throws {
        let unreachable = Client(serverURL: URL(string: "http://127.0.0.1:9")!, transport: CourierClientTransport(session: session()))
        do {
            _ = try await unreachable.getEcho(query: .init(name: "x"))
            Issue.record("expected a failure")
        } catch let error as ClientError {
            let courier = try #require(error.underlyingError as? CourierError)
            #expect(courier.kind == .connectionFailed)
            #expect(error.operationID == "getEcho")
        }
    }
}
