import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Synchronization
import Testing

// The Swift examples of docs/guide-middleware.md, verbatim (Scripts/lib/check-doc-examples.py checks that each
// one appears here), compiled and run.

/// Adds a request id to every exchange on the wire.
struct RequestID: Interceptor {
    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext,
                   next: InterceptorNext) async throws -> Response {
        var request = request
        request.headerFields[HTTPField.Name("X-Request-ID")!] = "req-\(context.task.id)"
        return try await next(request, body: body, context: context)
    }
}

/// Counts calls per route, read from the call's tags.
final class RouteCounter: Interceptor {
    let counts = Mutex<[String: Int]>([:])
    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext,
                   next: InterceptorNext) async throws -> Response {
        let route = context.options.tags["route"] ?? "other"
        counts.withLock { $0[route, default: 0] += 1 }
        return try await next(request, body: body, context: context)
    }
}

/// Answers `GET /health` itself: `next` is never called.
struct HealthShortCircuit: Interceptor {
    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext,
                   next: InterceptorNext) async throws -> Response {
        guard request.method == .get, request.path == "/health" else {
            return try await next(request, body: body, context: context)
        }
        return Response(head: HTTPResponse(status: .ok), body: Body("ok"), request: request)
    }
}

/// Prints each finished task with its status and total time.
struct Timing: EventListener {
    func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        print(task.id, response.status.code, task.metrics?.total ?? .zero)
    }
    func taskFailed(_ task: SessionTask, error: CourierError) {
        print(task.id, error.kind)
    }
}

@Suite struct MiddlewareGuideTests {
    @Test func composing() async throws {
        let transport = MockTransport(always: .status(.ok))
        let counter = RouteCounter()
        let recorder = RecordingEventListener()
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com"))
        configuration.interceptors = [counter, HealthShortCircuit()]   // once per call, outermost first
        configuration.networkInterceptors = [RequestID()]              // once per exchange on the wire
        configuration.eventListener = Timing() + recorder              // in that order
        let api = Session(configuration: configuration, transport: transport)

        var options = RequestOptions()
        options.tags["route"] = "profile"
        _ = try await api.data(.get, "users/me", options: options)
        _ = try await api.data(.get, "health")                        // answered by the interceptor

        #expect(counter.counts.withLock { $0 } == ["profile": 1, "other": 1])
        #expect(transport.requests.count == 1)
        #expect(transport.requests[0].head.headerFields[HTTPField.Name("X-Request-ID")!]?.hasPrefix("req-") == true)
        #expect(recorder.events(of: .taskCompleted).count == 2)
    }

    @Test func testingAnInterceptorAlone() async throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/users/me")
        let next = InterceptorNext { request, _, _ in
            #expect(request.headerFields[HTTPField.Name("X-Request-ID")!] != nil)
            return Response(head: HTTPResponse(status: .ok), request: request)
        }
        let response = try await RequestID().intercept(request, body: nil, context: RequestContext(request: request), next: next)
        #expect(response.status == .ok)
    }

    @Test func testingAListener() async throws {
        let recorder = RecordingEventListener()
        let session = Session(
            configuration: SessionConfiguration(eventListener: recorder),
            transport: MockTransport(always: .text("hello"))
        )
        _ = try await session.data(for: HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/"))
        let names = recorder.names(excluding: [.downloadProgress, .metricsCollected])
        #expect(names == ["taskCreated", "taskResumed", "requestSent", "responseHeadReceived", "taskCompleted"])
    }
}
