import HTTPTypes

/// A response as it leaves the chain: head, streaming body, metrics and redirect history.
///
/// A struct rather than a tuple so it can grow without breaking anyone.
public struct Response: Sendable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The body, still streaming.
    public var body: Body
    /// What the transport measured for the final exchange, when it measures.
    public var metrics: TransferMetrics?
    /// The redirects followed before this response, oldest first.
    public var history: [RedirectHop]
    /// The request that produced this response (after interceptors and redirects).
    public var request: HTTPRequest?

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
        self.metrics = metrics
        self.history = history
        self.request = request
    }

    /// The status, for short.
    public var status: HTTPResponse.Status { head.status }
}
