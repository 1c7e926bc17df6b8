import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Per-call options with libcurl and real servers (issue 13, part 2).
@Suite("Request options")
struct RequestOptionsTests {
    /// Retries every answer after half a second.
    struct AlwaysRetry: Retrier {
        func decision(for attempt: RetryAttempt) async -> RetryDecision { .retry(after: .milliseconds(500)) }
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
        let httpbin = session { $0.retrier = AlwaysRetry() }
        let (response, elapsed) = try await timed {
            try await httpbin.data(for: try httpbin.makeRequest(.get, "status/503"), options: RequestOptions(deadline: .seconds(2)))
        }
        // Tries at about 0, 0.5, 1 and 1.5 s; a retry at 2 s would pass the deadline, so the last 503 is the answer.
        #expect(response.head.status == .serviceUnavailable)
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
