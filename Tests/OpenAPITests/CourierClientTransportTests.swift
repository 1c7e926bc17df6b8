@testable import CourierOpenAPI
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import OpenAPIRuntime
import Testing

/// `CourierClientTransport` over a session on `MockTransport`: how it joins URLs and carries bodies both ways.
@Suite struct CourierClientTransportTests {
    @Test(arguments: [
        ("https://api.test/v1", "/pets?limit=2", "https", "api.test", "/v1/pets?limit=2"),
        ("https://api.test/v1/", "/pets", "https", "api.test", "/v1/pets"),
        ("http://127.0.0.1:18080", "/get", "http", "127.0.0.1:18080", "/get"),
        ("HTTP://[::1]:8080/", "/x", "http", "[::1]:8080", "/x"),
        ("https://api.test", "pets", "https", "api.test", "/pets"),
    ])
    func joinsTheServerURLAndTheOperationPath(server: String, path: String, scheme: String, authority: String, expected: String) throws {
        let operation = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
        let resolved = try OpenAPIRequestTarget.resolve(operation, against: URL(string: server)!)
        #expect(resolved.scheme == scheme)
        #expect(resolved.authority == authority)
        #expect(resolved.path == expected)
    }

    @Test(arguments: ["ftp://files.test/", "file:///tmp/x", "/relative"])
    func refusesServersARequestCannotReach(server: String) {
        let operation = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x")
        #expect(throws: OpenAPIRequestTarget.InvalidServerURL.self) {
            try OpenAPIRequestTarget.resolve(operation, against: URL(string: server)!)
        }
    }

    @Test func streamsBothWaysThroughTheSessionsChain() async throws {
        struct Stamp: Interceptor {
            func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
                var request = request
                request.headerFields[HTTPField.Name("X-Chain")!] = "yes"
                return try await next(request, body: body, context: context)
            }
        }
        let transport = MockTransport { request in
            .chunks([Data("got ".utf8), Data("\(request.body?.count ?? -1) bytes, chain=\(request.head.headerFields[HTTPField.Name("X-Chain")!] ?? "no")".utf8)])
        }
        let session = Session(configuration: SessionConfiguration(interceptors: [Stamp()]), transport: transport)
        let (stream, continuation) = AsyncStream<ArraySlice<UInt8>>.makeStream()
        let upload = HTTPBody(stream, length: .unknown)
        let sending = Task {
            try await CourierClientTransport(session: session).send(
                HTTPRequest(method: .put, scheme: nil, authority: nil, path: "/upload"),
                body: upload, baseURL: URL(string: "https://api.test/base")!, operationID: "upload"
            )
        }
        for _ in 0..<100 { continuation.yield(ArraySlice(repeating: 7, count: 1000)) }
        continuation.finish()
        let (head, body) = try await sending.value
        #expect(head.status == .ok)
        let text = try await String(collecting: #require(body), upTo: 1 << 20)
        #expect(text == "got 100000 bytes, chain=yes")
        #expect(transport.requests.first?.head.path == "/base/upload")
        #expect(transport.requests.first?.head.method == .put)
    }

    @Test func noBodyForHeadAndNoContent() async throws {
        let transport = MockTransport { request in
            request.method == .head ? .text("") : .status(.noContent)
        }
        let courier = CourierClientTransport(session: Session(transport: transport))
        for method in [HTTPRequest.Method.head, .delete] {
            let (_, body) = try await courier.send(HTTPRequest(method: method, scheme: nil, authority: nil, path: "/x"),
                                                   body: nil, baseURL: URL(string: "https://api.test")!, operationID: "x")
            #expect(body == nil)
        }
    }

    @Test func aFailureIsTheCourierError() async throws {
        let transport = MockTransport(always: .failure(TransportError(.connectionLost, message: "reset")))
        let courier = CourierClientTransport(session: Session(transport: transport))
        do {
            _ = try await courier.send(HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x"),
                                       body: nil, baseURL: URL(string: "https://api.test")!, operationID: "x")
            Issue.record("expected a failure")
        } catch let error as CourierError {
            #expect((error.underlyingError as? TransportError)?.code == .connectionLost)
            #expect(error.request?.path == "/x")
        }
    }
}
