/// What one call may change of its session's configuration: time limits and a total deadline, the
/// redirect policy, the body-size bound, retries, and tags for interceptors. Every option left
/// `nil` (the default) is the session's.
///
/// Interceptors and transports see a call's options through ``RequestContext/options``; a
/// transport needs nothing more than ``RequestContext/timeouts``, which already holds the call's
/// limits and what is left of its deadline.
///
/// ```swift
/// var options = RequestOptions(deadline: .seconds(2))
/// options.tags["route"] = "user-profile"
/// let response = try await session.data(for: request, options: options)
/// ```
public struct RequestOptions: Sendable {
    /// Time limits for each exchange of the call; `nil` keeps the session's.
    public var timeouts: Timeouts?
    /// The most the whole call may take, retries, redirects and (for buffered calls) the body
    /// included, counted from when it starts; past it the call fails as a timeout
    /// (``CourierError/Kind/timedOut``). `nil`: no deadline beyond the timeouts. AsyncHTTPClient's
    /// `deadline:`, okhttp's `callTimeout`.
    public var deadline: Duration?
    /// How redirects are followed for this call; `nil` keeps the session's.
    public var redirectPolicy: RedirectPolicy?
    /// The most bytes a buffered call reads into memory; `nil` keeps
    /// ``SessionConfiguration/maximumResponseBodySize``.
    public var maximumResponseBodySize: Int?
    /// False: the session's ``Retrier`` is not asked, and the call is tried once.
    public var retries: Bool
    /// Values for interceptors and listeners to read through ``RequestContext/options`` (a route
    /// name for metrics, a flag for a cache); Courier itself reads none.
    public var tags: [String: String]

    /// Options; everything left out is the session's.
    public init(
        timeouts: Timeouts? = nil,
        deadline: Duration? = nil,
        redirectPolicy: RedirectPolicy? = nil,
        maximumResponseBodySize: Int? = nil,
        retries: Bool = true,
        tags: [String: String] = [:]
    ) {
        self.timeouts = timeouts
        self.deadline = deadline
        self.redirectPolicy = redirectPolicy
        self.maximumResponseBodySize = maximumResponseBodySize
        self.retries = retries
        self.tags = tags
    }

    /// The session's configuration, unchanged.
    public static let `default` = RequestOptions()
}
