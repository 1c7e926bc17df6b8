import HTTPTypes

/// A ready-made ``Retrier`` with Alamofire's defaults: up to 2 retries of idempotent methods on
/// 408/500/502/503/504 and on network failures, backing off exponentially (0.5 s, 1 s), plus
/// what Alamofire lacks: optional jitter and the server's `Retry-After` on 429 and 503 (add 429
/// to ``retryableStatusCodes`` to retry rate-limited calls).
public struct RetryPolicy: Retrier {
    /// Retries after the first try.
    public var retryLimit: Int
    /// Delay = `scale` × `base`^(retry − 1) seconds.
    public var exponentialBackoffBase: Double
    /// See ``exponentialBackoffBase``.
    public var exponentialBackoffScale: Double
    /// Adds up to this fraction of the delay at random, so clients do not retry in lockstep.
    public var jitter: Double
    /// Methods safe to send twice.
    public var retryableMethods: Set<HTTPRequest.Method>
    /// Statuses that mean "try again".
    public var retryableStatusCodes: Set<Int>
    /// Transport failures that mean "try again".
    public var retryableTransportErrors: Set<TransportError.Code>
    /// Honour `Retry-After` (seconds) on 429 and 503 responses that are retried, up to this long;
    /// `nil` ignores it.
    public var maximumRetryAfter: Duration?

    /// A policy; the defaults are Alamofire's, with no jitter and `Retry-After` up to 60 s.
    public init(
        retryLimit: Int = 2,
        exponentialBackoffBase: Double = 2,
        exponentialBackoffScale: Double = 0.5,
        jitter: Double = 0,
        retryableMethods: Set<HTTPRequest.Method> = [.delete, .get, .head, .options, .put, .trace],
        retryableStatusCodes: Set<Int> = [408, 500, 502, 503, 504],
        retryableTransportErrors: Set<TransportError.Code> = [.timedOut, .cannotConnect, .connectionLost, .nameResolution],
        maximumRetryAfter: Duration? = .seconds(60)
    ) {
        self.retryLimit = retryLimit
        self.exponentialBackoffBase = max(1, exponentialBackoffBase)
        self.exponentialBackoffScale = max(0, exponentialBackoffScale)
        self.jitter = max(0, jitter)
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableTransportErrors = retryableTransportErrors
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Retries transient failures of idempotent requests.
    public func decision(for attempt: RetryAttempt) async -> RetryDecision {
        guard attempt.number <= retryLimit, retryableMethods.contains(attempt.request.method) else {
            return .doNotRetry
        }
        if let error = attempt.error, error.response == nil {
            guard let transport = error.underlyingError as? TransportError,
                  retryableTransportErrors.contains(transport.code)
            else { return .doNotRetry }
            return .retry(after: backoff(forRetry: attempt.number))
        }
        guard let response = attempt.response, retryableStatusCodes.contains(response.status.code) else {
            return .doNotRetry
        }
        if let serverDelay = retryAfter(in: response) { return .retry(after: serverDelay) }
        return .retry(after: backoff(forRetry: attempt.number))
    }

    /// The longest delay before a retry, in seconds: a day. An exponential backoff passes any bound after a few dozen
    /// retries (0.5 s × 2⁵⁵ is past what a `Duration` of milliseconds holds, and retry 56 trapped), so a long run
    /// waits a day at most; with ``jitter``, a little less than a day, so that clients that all reached the cap do
    /// not all retry at once.
    public static let maximumBackoffSeconds: Double = 86_400

    /// The delay before retry `n` (1-based), jitter included, at most ``maximumBackoffSeconds``.
    func backoff(forRetry n: Int) -> Duration {
        let cap = Self.maximumBackoffSeconds
        // Read through `max`: the properties are `var`s, so the initializer's clamps can be undone (a negative base
        // gave negative delays, and a range of jitter that ends below zero traps).
        let raw = max(0, exponentialBackoffScale) * pow(max(1, exponentialBackoffBase), Double(max(0, n - 1)))
        var seconds = raw > 0 ? min(cap, raw) : 0   // 0 × ∞ is NaN: no delay, as a scale of 0 asks
        let jitter = max(0, self.jitter)
        if jitter > 0, seconds > 0 {
            seconds += Double.random(in: 0...min(cap, seconds * jitter))
            if seconds > cap { seconds = cap - Double.random(in: 0...min(cap, cap * jitter)) }
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    private func retryAfter(in response: HTTPResponse) -> Duration? {
        guard let maximumRetryAfter,
              [429, 503].contains(response.status.code),
              let value = response.headerFields[.retryAfter],
              let seconds = Int(value.filter { $0 != " " && $0 != "\t" }), seconds >= 0
        else { return nil }
        return min(.seconds(seconds), maximumRetryAfter)
    }
}

private func pow(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(exponent)
    while remaining > 0 { result *= base; remaining -= 1 }
    return result
}
