import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Per-call options with libcurl and real servers (issue 13, part 2).
@Suite("Request options")
struct RequestOptionsTests {
    /// Retries every answer after half a second, noting when it was asked (the clock's instants).
    struct CountingRetry: Retrier {
        let decisions: Box<[ContinuousClock.Instant]>
        func decision(for attempt: RetryAttempt) async -> RetryDecision {
            decisions.update { $0.append(ContinuousClock.now) }
            return .retry(after: .milliseconds(500))
        }
    }

    @Test func aTwoSecondDeadlineOnOneCall() async throws {
        let fault = session(Servers.fault)
        let (error, elapsed) = await timed { () -> CourierError? in
            do {
                _ = try await fault.data(for: try fault.makeRequest(.get, "never"), options: RequestOptions(deadline: .seconds(2)))
                return nil
            } catch {
                return error as? CourierError
            }
        }
        #expect(error?.kind == .timedOut)
        #expect(elapsed >= .milliseconds(1900) && elapsed < TimeBounds.limit(.seconds(2)))
        // The next call on the same session has no deadline.
        #expect(try await fault.data(for: try fault.makeRequest(.get, "health")).head.status == .ok)
    }

    @Test func theDeadlineSpansRetries() async throws {
        let decisions = Box<[ContinuousClock.Instant]>([])
        let httpbin = session { $0.retrier = CountingRetry(decisions: decisions) }
        let request = try httpbin.makeRequest(.get, "status/503")
        let deadline = Duration.seconds(3)
        let start = ContinuousClock.now
        let (outcome, elapsed) = await timed { () -> Result<DataResponse, CourierError> in
            do throws(CourierError) {
                return .success(try await httpbin.data(for: request, options: RequestOptions(deadline: deadline)))
            } catch {
                return .failure(error)
            }
        }
        // Tries at about 0, 0.5, 1 … 2.5 s; a retry at 3 s would pass the deadline, so the last 503 is the
        // answer. On a busy machine a retry's sleep can end next to the deadline, and that try times out:
        // both are the deadline doing its job. What may not happen is a call that outlives it.
        switch outcome {
        case .success(let response): #expect(response.head.status == .serviceUnavailable)
        case .failure(let error): #expect(error.kind == .timedOut)
        }
        #expect(elapsed < TimeBounds.limit(deadline))
        // The deadline must not end the retries with the first try: when the first 503 came with time left
        // for the half-second wait and one more exchange (1.5 s, room for a loaded machine), it was answered
        // again. (Under a sanitizer beside other suites the first answer has taken over 2 s: then there is
        // nothing to check here.)
        let asked = decisions.value
        if let first = asked.first, first - start < deadline - .milliseconds(1500) {
            #expect(asked.count >= 2, "first 503 after \(first - start), asked \(asked.count) time(s), ended after \(elapsed)")
        }
    }

    @Test func aCallCanRefuseRedirects() async throws {
        let httpbin = session()
        let followed = try await httpbin.data(for: try httpbin.makeRequest(.get, "redirect/2"))
        #expect(followed.head.status == .ok && followed.history.count == 2)
        let refused = try await httpbin.data(for: try httpbin.makeRequest(.get, "redirect/2"), options: RequestOptions(redirectPolicy: .doNotFollow))
        #expect(refused.head.status == .found)
    }
}
