import CourierCore
import HTTPTypes

/// Holds a request back while its monitor says the network is not reachable, for up to
/// ``maximumWait``, then sends it as soon as the network returns.
///
/// ```swift
/// let monitor = ReachabilityMonitor(target: .anyNetwork)
/// try monitor.start()
/// let configuration = SessionConfiguration(
///     interceptors: [ReachabilityInterceptor(monitor: monitor, maximumWait: .seconds(10))]
/// )
/// ```
///
/// Only ``ReachabilityStatus/notReachable`` holds a request back: `unknown` (a monitor not
/// started, or not yet answered) and reachable statuses send at once. When the wait ends
/// without the network, the request fails with ``ReachabilityError`` reason
/// ``ReachabilityError/Reason/notReachable`` (the default, ``WhenStillUnreachable/fail``): there is no
/// route, so sending would fail anyway, and the typed error says why. With
/// ``WhenStillUnreachable/send`` it is sent regardless and the transport's own error (or
/// success, if the monitor was wrong) is the result. Cancelling the call ends the wait with
/// a cancellation.
///
/// As an application interceptor it gates each call once; as a network interceptor
/// (`SessionConfiguration.networkInterceptors`) it also gates every retry and redirect hop.
public struct ReachabilityInterceptor: Interceptor {
    /// What to do when the network is still unreachable after ``maximumWait``.
    public enum WhenStillUnreachable: Sendable, Hashable {
        /// Fail with ``ReachabilityError`` (``ReachabilityError/Reason/notReachable``).
        case fail
        /// Send the request anyway.
        case send
    }

    /// The monitor to consult; start it yourself (a stopped monitor holds nothing back).
    public let monitor: ReachabilityMonitor
    /// The longest a request waits for the network.
    public var maximumWait: Duration
    /// What happens when the wait ends without the network.
    public var whenStillUnreachable: WhenStillUnreachable

    /// An interceptor waiting up to `maximumWait` (5 s by default, Alamofire's `OfflineRetrier`
    /// default) and then failing.
    public init(monitor: ReachabilityMonitor, maximumWait: Duration = .seconds(5), whenStillUnreachable: WhenStillUnreachable = .fail) {
        self.monitor = monitor
        self.maximumWait = maximumWait
        self.whenStillUnreachable = whenStillUnreachable
    }

    /// Waits for the network while the monitor says not reachable, then passes the request on.
    public func intercept(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response {
        if monitor.status == .notReachable {
            let start = ContinuousClock.now
            let reachable = await monitor.waitUntilReachable(timeout: maximumWait)
            try Task.checkCancellation()
            if context.control.isCancelled { throw CancellationError() }
            if !reachable, whenStillUnreachable == .fail, monitor.status == .notReachable {
                throw ReachabilityError(.notReachable, target: monitor.target, waited: ContinuousClock.now - start)
            }
        }
        return try await next(request, body: body, context: context)
    }
}
