import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Per-call options with libcurl and real servers (issue 13, part 2).
@Suite("Request options")
struct RequestOptionsTests {
    /// Retries every answer after half a second.
    /// A count several tasks add to.
    final class Counter: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func increment() { count.add(1, ordering: .relaxed) }
    }

    /// Retries every answer after half a second, counting the tries.
    struct CountingRetry: Retrier {
        let tries: Counter
        func decision(for attempt: RetryAttempt) async -> RetryDecision {
            tries.increment()
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
        let tries = Counter()
        let httpbin = session { $0.retrier = CountingRetry(tries: tries) }
        let request = try httpbin.makeRequest(.get, "status/503")
        let (outcome, elapsed) = await timed { () -> Result<DataResponse, CourierError> in
            do throws(CourierError) {
                return .success(try await httpbin.data(for: request, options: RequestOptions(deadline: .seconds(2))))
            } catch {
                return .failure(error)
            }
        }
        // Tries at about 0, 0.5, 1 and 1.5 s; a retry at 2 s would pass the deadline, so the last 503 is the
        // answer. On a busy machine a retry's sleep can end next to the deadline, and that try times out:
        // both are the deadline doing its job. What may not happen is a call that outlives it.
        switch outcome {
        case .success(let response): #expect(response.head.status == .serviceUnavailable)
        case .failure(let error): #expect(error.kind == .timedOut)
        }
        #expect(tries.value >= 2)
        #expect(elapsed < TimeBounds.limit(.seconds(2)))
    }

    @Test func aCallCanRefuseRedirects() async throws {
        let httpbin = session()
        let followed = try await httpbin.data(for: try httpbin.makeRequest(.get, "redirect/2"))
        #expect(followed.head.status == .ok && followed.history.count == 2)
        let refused = try await httpbin.data(for: try httpbin.makeRequest(.get, "redirect/2"), options: RequestOptions(redirectPolicy: .doNotFollow))
        #expect(refused.head.status == .found)
    }
}
