import HTTPTypes

/// Decides whether a failed exchange is sent again. A session holds at most one; it runs in the
/// chain's retry slot, between the application interceptors and the redirect stage.
///
/// ## Choose between a retrier and an interceptor
/// A retrier only decides *whether* and *when*; the retry stage replays the body, reports the
/// retry to listeners and waits without blocking a thread. Write an ``Interceptor`` instead when
/// the retry must change the request (e.g. refresh a token first).
///
/// ```swift
/// struct RetryOnce503: Retrier {
///     func decision(for attempt: RetryAttempt) async -> RetryDecision {
///         attempt.number == 1 && attempt.response?.status.code == 503 ? .retry(after: .seconds(1)) : .doNotRetry
///     }
/// }
/// ```
public protocol Retrier: Sendable {
    /// Whether to send `attempt.request` again, and after how long.
    func decision(for attempt: RetryAttempt) async -> RetryDecision
}

/// One finished try, as a retrier sees it.
public struct RetryAttempt: Sendable {
    /// The request that was sent.
    public var request: HTTPRequest
    /// How many tries have been made so far, this one included (1 for the first).
    public var number: Int
    /// The response, when one arrived.
    public var response: HTTPResponse?
    /// The error, when the try failed.
    public var error: CourierError?

    /// An attempt.
    public init(request: HTTPRequest, number: Int, response: HTTPResponse?, error: CourierError?) {
        self.request = request
        self.number = number
        self.response = response
        self.error = error
    }
}

/// What a retrier decided.
public enum RetryDecision: Sendable, Equatable {
    /// Keep the result.
    case doNotRetry
    /// Send the request again after this delay.
    case retry(after: Duration)
}
