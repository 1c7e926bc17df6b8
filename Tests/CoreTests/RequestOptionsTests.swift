import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Synchronization
import Testing

/// Per-call options (issue 13, part 2): each one changes only its call, and interceptors see them.
@Suite struct RequestOptionsTests {
    /// Retries every answer after `delay`, counting how often it was asked.
    final class AlwaysRetry: Retrier {
        let delay: Duration
        let asked = Atomic<Int>(0)
        init(delay: Duration) { self.delay = delay }
        func decision(for attempt: RetryAttempt) async -> RetryDecision {
            asked.add(1, ordering: .relaxed)
            return .retry(after: delay)
        }
    }

    /// Records the tags and timeouts it sees.
    final class Peek: Interceptor {
        let seen = Locked<[(tags: [String: String], timeouts: Timeouts)]>([])
        func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
            seen.withLock { $0.append((context.options.tags, context.timeouts)) }
            return try await next(request, body: body, context: context)
        }
    }

    @Test func aDeadlineEndsTheCallAsATimeout() async throws {
        let session = Session(transport: MockTransport(always: .text("late", delay: .seconds(300))))
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: CourierError.self) {
            try await session.data(for: mockRequest(), options: RequestOptions(deadline: .milliseconds(200)))
        }
        #expect(error?.kind == .timedOut)
        #expect(clock.now - start < .seconds(300))  // the answer's delay: the only bound the behaviour sets
        // The session's own configuration is unchanged: another call has no deadline.
        let other = Session(transport: MockTransport(always: .text("soon", delay: .milliseconds(300))))
        #expect(try await other.data(for: mockRequest()).data == Data("soon".utf8))
    }

    @Test func aDeadlineStopsRetriesThatWouldPassIt() async throws {
        let retrier = AlwaysRetry(delay: .milliseconds(100))
        let session = Session(configuration: SessionConfiguration(retrier: retrier), transport: MockTransport(always: .status(.serviceUnavailable)))
        let response = try await session.data(for: mockRequest(), options: RequestOptions(deadline: .milliseconds(450)))
        #expect(response.head.status == .serviceUnavailable)
        let asked = retrier.asked.load(ordering: .relaxed)
        #expect(asked >= 1 && asked <= 5)  // at most one try per 100 ms of the deadline, and then the last answer
    }

    @Test func retriesOff() async throws {
        let retrier = AlwaysRetry(delay: .zero)
        let transport = MockTransport(sequence: [.status(.serviceUnavailable), .status(.ok)])
        let session = Session(configuration: SessionConfiguration(retrier: retrier), transport: transport)
        let response = try await session.data(for: mockRequest(), options: RequestOptions(retries: false))
        #expect(response.head.status == .serviceUnavailable)
        #expect(retrier.asked.load(ordering: .relaxed) == 0)
        #expect(transport.requests.count == 1)
    }

    @Test func timeoutsRedirectsAndTheBodyBoundPerCall() async throws {
        let session = Session(transport: MockTransport(routes: [
            "/slow": .text("late", delay: .seconds(300)),
            "/moved": .redirect(.found, to: "/here"),
            "/here": .text("here"),
            "/long": .text("0123456789"),
        ]))
        let slow = await #expect(throws: CourierError.self) {
            try await session.data(for: mockRequest(.get, "/slow"), options: RequestOptions(timeouts: Timeouts(request: .milliseconds(100))))
        }
        #expect(slow?.isTimeout == true)

        #expect(try await session.data(for: mockRequest(.get, "/moved")).data == Data("here".utf8))
        let unfollowed = try await session.data(for: mockRequest(.get, "/moved"), options: RequestOptions(redirectPolicy: .doNotFollow))
        #expect(unfollowed.head.status == .found)

        #expect(try await session.data(for: mockRequest(.get, "/long")).data.count == 10)
        let bounded = await #expect(throws: CourierError.self) {
            try await session.data(for: mockRequest(.get, "/long"), options: RequestOptions(maximumResponseBodySize: 4))
        }
        #expect(bounded?.kind == .tooLarge)
    }

    @Test func interceptorsSeeTheOptions() async throws {
        let peek = Peek()
        let session = Session(configuration: SessionConfiguration(interceptors: [peek]), transport: MockTransport(always: .status(.ok)))
        var options = RequestOptions(timeouts: Timeouts(connect: .seconds(3)))
        options.tags["route"] = "profile"
        _ = try await session.data(for: mockRequest(), options: options)
        _ = try await session.get("http://mock.test/x", options: RequestOptions(deadline: .seconds(30))).response
        let seen = peek.seen.withLock { $0 }
        #expect(seen.count == 2)
        #expect(seen[0].tags == ["route": "profile"] && seen[0].timeouts.connect == .seconds(3))
        #expect(seen[1].tags.isEmpty)
        let left = try #require(seen[1].timeouts.request)
        #expect(left <= .seconds(30) && left > .zero)
    }

    @Test func aStandaloneContextCountsItsDeadlineFromNow() throws {
        let context = RequestContext(request: mockRequest(), timeouts: Timeouts(request: .seconds(60)), options: RequestOptions(deadline: .seconds(10)))
        let left = try #require(context.timeouts.request)
        #expect(left <= .seconds(10))
        #expect(RequestContext(request: mockRequest(), timeouts: Timeouts(request: .seconds(5)), options: RequestOptions(deadline: .seconds(10))).timeouts.request == .seconds(5))
        #expect(RequestContext(request: mockRequest()).timeouts == .default)
    }
}
