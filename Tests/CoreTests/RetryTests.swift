import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Retry")
struct RetryTests {
    func attempt(_ method: HTTPRequest.Method = .get, number: Int = 1, status: Int? = nil, transport: TransportError.Code? = nil, headers: HTTPFields = [:]) -> RetryAttempt {
        let response = status.map { HTTPResponse(status: .init(code: $0), headerFields: headers) }
        let error = transport.map { CourierError(stage: .transport, underlyingError: TransportError($0, message: "x")) }
        return RetryAttempt(request: mockRequest(method), number: number, response: response, error: error)
    }

    @Test func policyHasAlamofiresDefaults() async {
        let policy = RetryPolicy()
        #expect(policy.retryLimit == 2)
        #expect(policy.retryableMethods == [.delete, .get, .head, .options, .put, .trace])
        #expect(policy.retryableStatusCodes == [408, 500, 502, 503, 504])
        #expect(await policy.decision(for: attempt(status: 503)) == .retry(after: .milliseconds(500)))
        #expect(await policy.decision(for: attempt(number: 2, status: 503)) == .retry(after: .seconds(1)))
        #expect(await policy.decision(for: attempt(number: 3, status: 503)) == .doNotRetry)
    }

    @Test func policyRetriesOnlyIdempotentMethodsAndTransientFailures() async {
        let policy = RetryPolicy()
        #expect(await policy.decision(for: attempt(.post, status: 503)) == .doNotRetry)
        #expect(await policy.decision(for: attempt(status: 404)) == .doNotRetry)
        #expect(await policy.decision(for: attempt(status: 200)) == .doNotRetry)
        #expect(await policy.decision(for: attempt(transport: .connectionLost)) == .retry(after: .milliseconds(500)))
        #expect(await policy.decision(for: attempt(transport: .tlsFailure)) == .doNotRetry)
    }

    @Test func policyHonoursRetryAfterWithinItsCap() async {
        let policy = RetryPolicy(retryableStatusCodes: [429, 503], maximumRetryAfter: .seconds(10))
        #expect(await policy.decision(for: attempt(status: 429, headers: [.retryAfter: "3"])) == .retry(after: .seconds(3)))
        #expect(await policy.decision(for: attempt(status: 503, headers: [.retryAfter: "120"])) == .retry(after: .seconds(10)))
        #expect(await policy.decision(for: attempt(status: 503, headers: [.retryAfter: "soon"])) == .retry(after: .milliseconds(500)))
    }

    /// A long run of retries backs off up to a day and no further, with or without jitter, however large the base: the
    /// delay of retry 70 at base 2 (0.5 s × 2⁶⁹) is past what a `Duration` of milliseconds holds, and trapped.
    @Test func longRunsOfRetriesBackOffUpToADay() async {
        let day = Duration.seconds(86_400)
        for (base, scale, jitter) in [(2.0, 0.5, 0.0), (2.0, 0.5, 1.0), (1e308, 1e308, 0.0), (10.0, 0.0, 0.5)] {
            let policy = RetryPolicy(retryLimit: 5000, exponentialBackoffBase: base, exponentialBackoffScale: scale, jitter: jitter)
            for number in [1, 30, 64, 70, 1025, 5000] {
                guard case .retry(let delay) = await policy.decision(for: attempt(number: number, status: 503)) else {
                    Issue.record("retry \(number) was not retried"); continue
                }
                #expect(delay >= .zero && delay <= day, "base \(base), scale \(scale), retry \(number): \(delay)")
                if scale == 0 { #expect(delay == .zero, "scale 0, retry \(number): \(delay)") }
            }
        }
        let policy = RetryPolicy(retryLimit: 100)
        #expect(await policy.decision(for: attempt(number: 70, status: 503)) == .retry(after: day))
    }

    /// The policy's properties are `var`s: undoing the initializer's clamps (a negative base, scale or jitter) gives no
    /// negative delay and no trap; and jitter spreads retries that reached the cap below it, not all at one second.
    @Test func settingsChangedAfterTheInitializerStillBackOffSanely() async {
        var policy = RetryPolicy(retryLimit: 5000)
        policy.exponentialBackoffBase = -2
        policy.jitter = -1
        for number in [1, 2, 3, 56, 57] {
            guard case .retry(let delay) = await policy.decision(for: attempt(number: number, status: 503)) else {
                Issue.record("retry \(number) was not retried"); continue
            }
            #expect(delay == .milliseconds(500), "base -2, retry \(number): \(delay)")
        }
        policy.exponentialBackoffBase = 2
        policy.exponentialBackoffScale = -1
        #expect(await policy.decision(for: attempt(number: 9, status: 503)) == .retry(after: .zero))
        policy.exponentialBackoffScale = 0.5
        policy.jitter = 0.5
        var delays: Set<Duration> = []
        for _ in 0..<20 {
            guard case .retry(let delay) = await policy.decision(for: attempt(number: 100, status: 503)) else { continue }
            #expect(delay >= .seconds(43_200) && delay <= .seconds(86_400), "\(delay)")
            delays.insert(delay)
        }
        #expect(delays.count > 1, "every retry at the cap waits the same: \(delays)")
    }

    /// A retrier of one's own may ask for any delay; the stage waits a day at most (a delay past what the clock's
    /// nanoseconds hold trapped in the sleep), and tells listeners the delay it keeps.
    @Test func theStageWaitsADayAtMost() async throws {
        struct Forever: Retrier {
            func decision(for attempt: RetryAttempt) async -> RetryDecision {
                attempt.number == 1 ? .retry(after: .seconds(Int64.max)) : .doNotRetry
            }
        }
        let transport = MockTransport(always: .status(.serviceUnavailable))
        let (session, recorder) = recordingSession(transport) { $0.retrier = Forever() }
        let task = session.dataTask(with: mockRequest()).resume()
        #expect(await eventually { recorder.events(of: .retrying).count == 1 })
        #expect(recorder.events(of: .retrying).first?.retry?.delay == .seconds(86_400))
        task.cancel()
        #expect(transport.requests.count == 1)
    }

    @Test func jitterStaysWithinItsFraction() async {
        let policy = RetryPolicy(jitter: 0.5)
        for _ in 0..<50 {
            guard case .retry(let delay) = await policy.decision(for: attempt(status: 500)) else {
                Issue.record("expected a retry"); return
            }
            #expect(delay >= .milliseconds(500) && delay <= .milliseconds(750))
        }
    }

    @Test func stageRetriesUntilSuccessAndReportsEachRetry() async throws {
        let transport = MockTransport(sequence: [.status(.serviceUnavailable), .status(.badGateway), .text("ok")])
        let (session, recorder) = recordingSession(transport) {
            $0.retrier = RetryPolicy(exponentialBackoffScale: 0.001)
        }
        let response = try await session.data(for: mockRequest())
        #expect(response.text == "ok")
        #expect(transport.requests.count == 3)
        #expect(recorder.events(of: .retrying).compactMap { $0.retry?.attempt } == [2, 3])
    }

    @Test func stageReturnsTheLastResponseWhenRetriesRunOut() async throws {
        let transport = MockTransport(always: .status(.serviceUnavailable))
        let session = Session(configuration: SessionConfiguration(retrier: RetryPolicy(exponentialBackoffScale: 0.001)), transport: transport)
        let response = try await session.data(for: mockRequest())
        #expect(response.status == .serviceUnavailable)
        #expect(transport.requests.count == 3)
    }

    @Test func stageReplaysAReplayableBodyIdentically() async throws {
        let transport = MockTransport(sequence: [.failure(TransportError(.connectionLost, message: "reset")), .text("ok")])
        let session = Session(configuration: SessionConfiguration(retrier: RetryPolicy(exponentialBackoffScale: 0.001)), transport: transport)
        _ = try await session.data(for: mockRequest(.put, "/p"), body: Body("same bytes"))
        #expect(transport.requests.map(\.text) == ["same bytes", "same bytes"])
    }

    @Test func stageNeverReplaysASinglePassBody() async throws {
        let transport = MockTransport(always: .status(.serviceUnavailable))
        let session = Session(configuration: SessionConfiguration(retrier: RetryPolicy(exponentialBackoffScale: 0.001)), transport: transport)
        let (body, writer) = Body.makeStream()
        writer.yield(Data("once".utf8))
        writer.finish()
        let response = try await session.data(for: mockRequest(.put, "/p"), body: body)
        #expect(response.status == .serviceUnavailable)
        #expect(transport.requests.count == 1)
    }

    @Test func cancellationIsNeverRetried() async throws {
        let transport = MockTransport(always: .text("slow", delay: .seconds(30)))
        let (session, recorder) = recordingSession(transport) { $0.retrier = RetryPolicy(retryableTransportErrors: [.timedOut, .other]) }
        let task = session.dataTask(with: mockRequest()).resume()
        #expect(await eventually { recorder.events(of: .requestSent).count == 1 })
        task.cancel()
        await #expect { _ = try await task.response } throws: { ($0 as? CourierError)?.isCancellation == true }
        #expect(transport.requests.count == 1)
    }
}
