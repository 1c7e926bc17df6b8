import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Synchronization
import Testing

/// The example on `Interceptor`, word for word.
struct BearerToken: Interceptor {
    let token: String
    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext,
                   next: InterceptorNext) async throws -> Response {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body: body, context: context)
    }
}

/// Retries once on a 503, as a user's own retry middleware might.
struct RetryOnceOn503: Interceptor {
    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        let first = try await next(request, body: body, context: context)
        guard first.status == .serviceUnavailable else { return first }
        return try await next(request, body: body, context: context)
    }
}

/// An interceptor tested with no Session and no transport (issue 13): `next` from a closure, a context
/// from a request.
@Suite struct InterceptorAloneTests {
    private let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/me")

    /// The unit test in `Interceptor`'s doc comment, word for word.
    @Test func addsTheToken() async throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.test", path: "/me")
        let next = InterceptorNext { request, _, _ in
            #expect(request.headerFields[.authorization] == "Bearer t0k3n")
            return Response(head: HTTPResponse(status: .ok), request: request)
        }
        let response = try await BearerToken(token: "t0k3n")
            .intercept(request, body: nil, context: RequestContext(request: request), next: next)
        #expect(response.head.status == .ok)
    }

    @Test func aClosureNextCanBeCalledAgainAndCanFail() async throws {
        let calls = Atomic<Int>(0)
        let next = InterceptorNext { request, _, _ in
            let call = calls.add(1, ordering: .relaxed).newValue
            return Response(head: HTTPResponse(status: call == 1 ? .serviceUnavailable : .ok), request: request)
        }
        let response = try await RetryOnceOn503().intercept(request, body: nil, context: RequestContext(request: request), next: next)
        #expect(response.status == .ok)
        #expect(calls.load(ordering: .relaxed) == 2)

        struct Refused: Error {}
        let failing = InterceptorNext { _, _, _ in throw Refused() }
        await #expect(throws: Refused.self) {
            try await BearerToken(token: "x").intercept(request, body: nil, context: RequestContext(request: request), next: failing)
        }
    }

    @Test func aStandaloneContextHasItsOwnTaskAndReportsToItsListener() async throws {
        let recorder = RecordingEventListener()
        let timeouts = Timeouts(request: .seconds(2))
        let context = RequestContext(request: request, kind: .upload, timeouts: timeouts, listener: recorder)
        #expect(context.task.originalRequest == request)
        #expect(context.task.kind == .upload)
        #expect(context.task.sessionID == 0)
        #expect(context.timeouts == timeouts)
        #expect(context.trustEvaluator == nil)
        #expect(context.control.state == .running)
        // Running, as a session's task is when a transport sees it: suspend acts at once, with no event of a resume.
        #expect(context.task.state == .running)
        context.task.suspend()
        #expect(context.control.state == .suspended)
        context.task.resume()
        #expect(context.control.state == .running)
        #expect(recorder.events(of: .taskResumed).count == 1)

        // What a transport under test reports reaches the listener and the task.
        context.requestSent(request)
        context.responseHeadReceived(HTTPResponse(status: .ok, headerFields: [.contentLength: "5"]))
        context.downloadProgress(TransferProgress(completed: 5, total: 5))
        #expect(recorder.events(of: .requestSent).count == 1)
        #expect(recorder.events(of: .responseHeadReceived).count == 1)
        #expect(context.task.response?.status == .ok)
        #expect(context.task.downloadProgress.completed == 5)

        // Two contexts are two tasks.
        #expect(RequestContext(request: request).task != RequestContext(request: request).task)
    }

    /// A MockTransport runs under a standalone context too, so a network interceptor can be tested with it.
    @Test func aStandaloneContextDrivesAMockTransport() async throws {
        let transport = MockTransport(always: .status(.created))
        let next = InterceptorNext { request, body, context in try await transport.send(request, body: body, context: context) }
        let response = try await BearerToken(token: "abc").intercept(request, body: nil, context: RequestContext(request: request), next: next)
        #expect(response.status == .created)
        #expect(transport.requests.first?.head.headerFields[.authorization] == "Bearer abc")
    }
}
