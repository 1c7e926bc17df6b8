import FoundationEssentials
import HTTPTypes

/// A response whose body has been read into memory: what data and upload tasks complete with.
public struct DataResponse: Sendable {
    /// The request that produced the response (after interceptors and redirects).
    public var request: HTTPRequest
    /// The status and header fields.
    public var head: HTTPResponse
    /// The whole body.
    public var data: Data
    /// What the transport measured for the final exchange, when it measures.
    public var metrics: TransferMetrics? {
        get { metricsSource?.metrics }
        set { metricsSource = newValue.map { .box(MetricsBox($0)) } }
    }
    /// The redirects followed, oldest first.
    public var history: [RedirectHop]

    /// Where the metrics are, by reference as ``Response`` keeps them: 8 bytes in each of the async frames that
    /// hold a response or a `Result` with one.
    var metricsSource: MetricsSource?

    /// A buffered response.
    public init(
        request: HTTPRequest,
        head: HTTPResponse,
        data: Data,
        metrics: TransferMetrics? = nil,
        history: [RedirectHop] = []
    ) {
        self.init(request: request, head: head, data: data, metrics: metrics.map { .box(MetricsBox($0)) }, history: history)
    }

    /// A buffered response whose metrics are at `metrics`.
    init(request: HTTPRequest, head: HTTPResponse, data: Data, metrics: MetricsSource?, history: [RedirectHop]) {
        self.request = request
        self.head = head
        self.data = data
        self.metricsSource = metrics
        self.history = history
    }

    /// The status, for short.
    public var status: HTTPResponse.Status { head.status }

    /// The body decoded as UTF-8 (invalid bytes replaced).
    public var text: String { String(decoding: data, as: UTF8.self) }
}

/// A download that finished: the response head and where its body now lives.
public struct DownloadResponse: Sendable {
    /// The request that produced the response (after interceptors and redirects).
    public var request: HTTPRequest
    /// The status and header fields.
    public var head: HTTPResponse
    /// The file the body was moved to.
    public var fileURL: URL
    /// What the transport measured for the final exchange, when it measures.
    public var metrics: TransferMetrics?
    /// The redirects followed, oldest first.
    public var history: [RedirectHop]

    /// A finished download.
    public init(
        request: HTTPRequest,
        head: HTTPResponse,
        fileURL: URL,
        metrics: TransferMetrics? = nil,
        history: [RedirectHop] = []
    ) {
        self.request = request
        self.head = head
        self.fileURL = fileURL
        self.metrics = metrics
        self.history = history
    }

    /// The status, for short.
    public var status: HTTPResponse.Status { head.status }
}
