import Dispatch
import FoundationEssentials
import HTTPTypes

/// Everything a ``Session`` is made with. Set it up once; a session never changes it.
///
/// ```swift
/// var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
/// configuration.headers[.accept] = "application/json"
/// configuration.interceptors = [BearerToken(token: token)]
/// configuration.retrier = RetryPolicy()
/// let session = Session(configuration: configuration, transport: transport)
/// ```
public struct SessionConfiguration: Sendable {
    /// Relative paths resolve against it (RFC 3986). A non-empty path gets a trailing `/`, as in
    /// AFNetworking, so `v1` + `users` is `v1/users`.
    public var baseURL: URL?
    /// Header fields every request the session builds starts with (``Session/makeRequest(_:_:headers:)``
    /// and the REST conveniences); a call's own fields replace them by name. A request you build
    /// yourself and pass to `send`, `data(for:)` or a task factory is sent as it is.
    public var headers: HTTPFields
    /// Time limits for each exchange.
    public var timeouts: Timeouts
    /// Turns parameters into query strings and bodies; `nil` refuses calls that pass parameters.
    public var requestSerializer: (any RequestSerializer)?
    /// What ``DataTask/value()`` uses; `nil` returns the raw `Data`.
    public var responseSerializer: (any ResponseSerializer)?
    /// Application interceptors: once per call, outermost first.
    public var interceptors: [any Interceptor]
    /// Network interceptors: once per exchange on the wire, redirect hops and retries included.
    public var networkInterceptors: [any Interceptor]
    /// The retry slot's retrier; `nil` never retries.
    public var retrier: (any Retrier)?
    /// How redirects are followed.
    public var redirectPolicy: RedirectPolicy
    /// Hears every task's events.
    public var eventListener: (any EventListener)?
    /// Makes one more listener per task, heard after ``eventListener``.
    public var eventListenerFactory: (@Sendable (HTTPRequest) -> any EventListener)?
    /// Decides about TLS servers during the handshake; `nil` uses the transport's verification.
    public var trustEvaluator: (any ServerTrustEvaluator)?
    /// Where completion handlers run when a call names no queue; `nil` uses a serial queue of
    /// the session's own (never the main queue).
    public var completionQueue: DispatchQueue?
    /// A group every completion handler runs inside, when no other is named.
    public var completionGroup: DispatchGroup?
    /// The largest response body a data task buffers.
    public var maximumResponseBodySize: Int
    /// Where downloads go, whatever their task asked (AFNetworking's session-level
    /// `downloadTaskDidFinishDownloading` block); return `nil` to use the task's destination.
    public var downloadDestination: (@Sendable (SessionTask, HTTPResponse) -> URL?)?

    /// A configuration; every argument has a working default.
    public init(
        baseURL: URL? = nil,
        headers: HTTPFields = [:],
        timeouts: Timeouts = .default,
        requestSerializer: (any RequestSerializer)? = nil,
        responseSerializer: (any ResponseSerializer)? = nil,
        interceptors: [any Interceptor] = [],
        networkInterceptors: [any Interceptor] = [],
        retrier: (any Retrier)? = nil,
        redirectPolicy: RedirectPolicy = .follow,
        eventListener: (any EventListener)? = nil,
        eventListenerFactory: (@Sendable (HTTPRequest) -> any EventListener)? = nil,
        trustEvaluator: (any ServerTrustEvaluator)? = nil,
        completionQueue: DispatchQueue? = nil,
        completionGroup: DispatchGroup? = nil,
        maximumResponseBodySize: Int = 256 * 1024 * 1024,
        downloadDestination: (@Sendable (SessionTask, HTTPResponse) -> URL?)? = nil
    ) {
        self.baseURL = baseURL
        self.headers = headers
        self.timeouts = timeouts
        self.requestSerializer = requestSerializer
        self.responseSerializer = responseSerializer
        self.interceptors = interceptors
        self.networkInterceptors = networkInterceptors
        self.retrier = retrier
        self.redirectPolicy = redirectPolicy
        self.eventListener = eventListener
        self.eventListenerFactory = eventListenerFactory
        self.trustEvaluator = trustEvaluator
        self.completionQueue = completionQueue
        self.completionGroup = completionGroup
        self.maximumResponseBodySize = maximumResponseBodySize
        self.downloadDestination = downloadDestination
    }
}
