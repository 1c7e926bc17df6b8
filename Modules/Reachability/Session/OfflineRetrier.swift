import CourierCore
import HTTPTypes

/// Retries a request that failed for lack of network once the network returns: Alamofire's
/// `OfflineRetrier`, which Alamofire offers only where Apple's Network framework exists.
///
/// ```swift
/// let configuration = SessionConfiguration(
///     retrier: OfflineRetrier(monitor: monitor, maximumWait: .seconds(10), fallback: RetryPolicy())
/// )
/// ```
///
/// A failed try is retried when all of these hold:
/// - it failed without a response, with a ``TransportError`` whose code is in
///   ``offlineErrors`` (by default `cannotConnect` and `nameResolution`: the request never
///   left, so every method is safe to send again);
/// - the monitor says the network is not reachable now — then the retrier waits up to
///   ``maximumWait`` for it to return, and retries at once when it does — or it was not
///   reachable less than ``maximumWait`` ago (the outage ended while the request was failing);
/// - fewer than ``retryLimit`` retries were made.
///
/// Otherwise, the decision is the ``fallback``'s (none by default: do not retry). The wait is
/// bounded; if the network is still gone after it, the original error is the result.
public struct OfflineRetrier: Retrier {
    /// The monitor to consult; start it yourself.
    public let monitor: ReachabilityMonitor
    /// The longest to wait for the network before giving up.
    public var maximumWait: Duration
    /// Retries after the first try.
    public var retryLimit: Int
    /// Transport failures that can mean "no network". Add `connectionLost` or `timedOut` to
    /// retry transfers cut by an outage too — requests that may have reached the server.
    public var offlineErrors: Set<TransportError.Code>
    /// Decides for every failure this retrier does not take (e.g. a ``RetryPolicy``).
    public var fallback: (any Retrier)?

    /// A retrier with Alamofire's 5 s wait.
    public init(
        monitor: ReachabilityMonitor,
        maximumWait: Duration = .seconds(5),
        retryLimit: Int = 2,
        offlineErrors: Set<TransportError.Code> = [.cannotConnect, .nameResolution],
        fallback: (any Retrier)? = nil
    ) {
        self.monitor = monitor
        self.maximumWait = maximumWait
        self.retryLimit = retryLimit
        self.offlineErrors = offlineErrors
        self.fallback = fallback
    }

    /// Retries an offline failure once the network is back (waiting up to ``maximumWait``);
    /// asks ``fallback`` about everything else.
    public func decision(for attempt: RetryAttempt) async -> RetryDecision {
        if attempt.number <= retryLimit, isOfflineFailure(attempt), monitor.wasNotReachable(within: maximumWait) {
            if monitor.status.isReachable { return .retry(after: .zero) }
            let returned = await monitor.waitUntilReachable(timeout: maximumWait)
            return returned ? .retry(after: .zero) : .doNotRetry
        }
        return await fallback?.decision(for: attempt) ?? .doNotRetry
    }

    private func isOfflineFailure(_ attempt: RetryAttempt) -> Bool {
        guard let error = attempt.error, error.response == nil,
              let transport = error.underlyingError as? TransportError
        else { return false }
        return offlineErrors.contains(transport.code)
    }
}
