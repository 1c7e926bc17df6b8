import HTTPTypes

/// A response as it leaves the chain: head, streaming body, metrics and redirect history.
///
/// A struct rather than a tuple so it can grow without breaking anyone.
public struct Response: Sendable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The body, still streaming.
    public var body: Body
    /// What the transport measured for the final exchange, when it measures and reports it here (CourierCurl
    /// reports metrics to the task instead: ``SessionTask/metrics``, ``DataResponse/metrics``).
    public var metrics: TransferMetrics? {
        get { metricsBox?.metrics }
        set { metricsBox = newValue.map(MetricsBox.init) }
    }
    /// The redirects followed before this response, oldest first.
    public var history: [RedirectHop]
    /// The request that produced this response (after interceptors and redirects).
    public var request: HTTPRequest?

    /// The metrics in an object of their own, nil without metrics: a response is 8 bytes of them instead of
    /// 104. A call holds many responses across its suspension points (the result of each step of the chain), in
    /// async frames the task allocates per call, and CourierCurl's responses carry no metrics here.
    var metricsBox: MetricsBox?

    /// A response.
    public init(
        head: HTTPResponse,
        body: Body = .empty,
        metrics: TransferMetrics? = nil,
        history: [RedirectHop] = [],
        request: HTTPRequest? = nil
    ) {
        self.head = head
        self.body = body
        self.metricsBox = metrics.map(MetricsBox.init)
        self.history = history
        self.request = request
    }

    /// The status, for short.
    public var status: HTTPResponse.Status { head.status }
}

/// Metrics held by reference, never changed once made (a change makes a new box).
final class MetricsBox: Sendable {
    let metrics: TransferMetrics

    init(_ metrics: TransferMetrics) { self.metrics = metrics }
}
