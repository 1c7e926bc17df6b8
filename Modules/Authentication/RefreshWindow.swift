/// At most ``maximumRefreshes`` refreshes within ``interval``: a guard against loops where a server
/// refuses every new credential and each refusal asks for another (Alamofire's `RefreshWindow`).
///
/// ```swift
/// AuthenticationInterceptor(authenticator: auth, credential: saved,
///                           refreshWindow: RefreshWindow(interval: .seconds(60), maximumRefreshes: 3))
/// ```
public struct RefreshWindow: Sendable, Hashable {
    /// The span over which refreshes are counted.
    public var interval: Duration
    /// The most refreshes allowed within ``interval``; one more fails with
    /// ``AuthenticationError/Code/excessiveRefresh``.
    public var maximumRefreshes: Int

    /// A window; `maximumRefreshes` below 1 counts as 1.
    public init(interval: Duration = .seconds(30), maximumRefreshes: Int = 5) {
        self.interval = interval
        self.maximumRefreshes = max(1, maximumRefreshes)
    }
}
