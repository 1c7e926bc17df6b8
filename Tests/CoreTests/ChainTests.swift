import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// Appends its name to a header on the way out and to a response header on the way back.
struct Tagger: Interceptor {
    let name: String
    static let trail = HTTPField.Name("X-Trail")!

    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        var request = request
        request.headerFields[Self.trail] = (request.headerFields[Self.trail].map { $0 + "," } ?? "") + name
        var response = try await next(request, body: body, context: context)
        response.head.headerFields[Self.trail] = (response.head.headerFields[Self.trail].map { $0 + "," } ?? "") + name
        return response
    }
}

/// Counts how often it runs.
final class Counter: Interceptor {
    let count = Box(0)
    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        count.update { $0 += 1 }
        return try await next(request, body: body, context: context)
    }
}

@Suite("Interceptor chain")
struct ChainTests {
    @Test func interceptorsRunInOrderOutAndReversedBack() async throws {
        let transport = MockTransport(always: .status(.ok))
        let session = Session(
            configuration: SessionConfiguration(
                interceptors: [Tagger(name: "a1"), Tagger(name: "a2")],
                networkInterceptors: [Tagger(name: "n1")]
            ),
            transport: transport
        )
        let response = try await session.data(for: mockRequest())
        #expect(transport.requests[0].head.headerFields[Tagger.trail] == "a1,a2,n1")
        #expect(response.head.headerFields[Tagger.trail] == "n1,a2,a1")
    }

    @Test func applicationInterceptorsRunOncePerCallNetworkOncePerHop() async throws {
        let application = Counter(), network = Counter()
        let transport = MockTransport(routes: ["/a": .redirect(to: "/b"), "/b": .redirect(to: "/c"), "/c": .text("x")])
        let session = Session(
            configuration: SessionConfiguration(interceptors: [application], networkInterceptors: [network]),
            transport: transport
        )
        _ = try await session.data(for: mockRequest(.get, "/a"))
        #expect(application.count.value == 1)
        #expect(network.count.value == 3)
    }

    struct ShortCircuit: Interceptor {
        func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
            Response(head: HTTPResponse(status: .ok), body: Body("cached"))
        }
    }

    @Test func anInterceptorMayAnswerWithoutTheTransport() async throws {
        let transport = MockTransport(always: .status(.internalServerError))
        let session = Session(configuration: SessionConfiguration(interceptors: [ShortCircuit()]), transport: transport)
        #expect(try await session.data(for: mockRequest()).text == "cached")
        #expect(transport.requests.isEmpty)
    }

    struct Thrower: Interceptor {
        struct Denied: Error {}
        func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
            throw Denied()
        }
    }

    @Test func anInterceptorsErrorNamesIt() async throws {
        let session = Session(configuration: SessionConfiguration(interceptors: [Thrower()]), transport: MockTransport(always: .status(.ok)))
        await #expect {
            _ = try await session.data(for: mockRequest())
        } throws: { error in
            let error = error as? CourierError
            return error?.stage.name.contains("Thrower") == true && error?.underlyingError is Thrower.Denied
                && error?.request?.path == "/"
        }
    }

    /// The transport in the `Transport` doc comment, written as a user would from it.
    struct EchoTransport: Transport {
        func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
            context.requestSent(request)
            let bytes = try await body?.collect(upTo: 1 << 20) ?? Data()
            let head = HTTPResponse(status: .ok, headerFields: [.contentType: "application/octet-stream"])
            context.responseHeadReceived(head)
            return Response(head: head, body: Body(bytes))
        }
    }

    @Test func aTenLineCustomTransportRunsThroughTheWholeChain() async throws {
        let recorder = RecordingEventListener()
        let session = Session(
            configuration: SessionConfiguration(
                interceptors: [Tagger(name: "app")],
                retrier: RetryPolicy(),
                eventListener: recorder
            ),
            transport: EchoTransport()
        )
        let response = try await session.data(for: mockRequest(.post, "/echo"), body: Body("ping"))
        #expect(response.text == "ping")
        #expect(response.head.headerFields[Tagger.trail] == "app")
        #expect(recorder.names() == ["taskCreated", "taskResumed", "requestSent", "responseHeadReceived", "taskCompleted"])
        let task = session.uploadTask(with: mockRequest(.post, "/echo"), from: .data(Data("pong".utf8)))
        #expect(try await task.response.text == "pong")
    }
}
