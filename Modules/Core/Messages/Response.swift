import FoundationEssentials
import HTTPTypes

/// A response as it leaves the chain: head, streaming body, metrics and redirect history.
///
/// A struct rather than a tuple so it can grow without breaking anyone.
public struct Response: Sendable {
    /// The status and header fields.
    public var head: HTTPResponse
    /// The body, still streaming; for a body the transport received whole before it handed the response over, a
    /// replayable body of those bytes, made when asked (each read of the property makes one).
    public var body: Body {
        get {
            switch payload {
            case .streamed(let body): body
            case .whole(let bytes): Body(bytes)
            }
        }
        set { payload = .streamed(newValue) }
    }
    /// What the transport measured for the final exchange, when it measures and reports it here (CourierCurl
    /// reports metrics to the task instead: ``SessionTask/metrics``, ``DataResponse/metrics``).
    public var metrics: TransferMetrics? {
        get { extras?.metrics?.metrics }
        set { extras = Extras.make(metrics: newValue.map(MetricsBox.init), history: history) }
    }
    /// The redirects followed before this response, oldest first.
    public var history: [RedirectHop] {
        get { extras?.history ?? [] }
        set { extras = Extras.make(metrics: extras?.metrics, history: newValue) }
    }
    /// The request that produced this response (after interceptors and redirects).
    public var request: HTTPRequest?

    /// The body as the transport or an interceptor gave it, or the bytes of a body that came whole: most small
    /// responses, which a buffering call (``Session/data(for:body:options:)``) then takes as they are, with no
    /// ``Body`` object made (an allocation fewer per call). 16 bytes either way.
    private var payload: Payload
    /// Metrics and redirect history, which most responses lack (CourierCurl reports its metrics to the task): nil
    /// then, and one reference when either is set. A call holds many responses across its suspension points (the
    /// result of each step of the chain), in async frames the task allocates per call, so a response keeps its
    /// rare parts out of line: 57 bytes in all.
    private var extras: Extras?

    private enum Payload: Sendable {
        case streamed(Body)
        case whole(Data)
    }

    /// Never changed once made: a setter makes a new one, so copies of a response stay apart.
    private final class Extras: Sendable {
        let metrics: MetricsBox?
        let history: [RedirectHop]

        private init(metrics: MetricsBox?, history: [RedirectHop]) {
            self.metrics = metrics
            self.history = history
        }

        /// Extras of `metrics` and `history`, or nil when there are neither.
        static func make(metrics: MetricsBox?, history: [RedirectHop]) -> Extras? {
            metrics == nil && history.isEmpty ? nil : Extras(metrics: metrics, history: history)
        }
    }

    /// A response.
    public init(
        head: HTTPResponse,
        body: Body = .empty,
        metrics: TransferMetrics? = nil,
        history: [RedirectHop] = [],
        request: HTTPRequest? = nil
    ) {
        self.head = head
        self.payload = .streamed(body)
        self.extras = Extras.make(metrics: metrics.map(MetricsBox.init), history: history)
        self.request = request
    }

    /// A response whose body arrived whole, as `bytes`: ``body`` is then a replayable body of them, made when asked,
    /// and a buffering call takes the bytes themselves (``bufferedBytes(upTo:)``).
    package init(head: HTTPResponse, wholeBody bytes: Data, request: HTTPRequest? = nil) {
        self.head = head
        self.payload = .whole(bytes)
        self.extras = nil
        self.request = request
    }

    /// The metrics in their box, shared with a ``DataResponse`` made from this response.
    var metricsBox: MetricsBox? { extras?.metrics }

    /// The whole body when it is in memory and may be read again, checked against `maxBytes` as
    /// ``Body/collect(upTo:)`` checks it; nil for a body that must be read.
    /// - Throws: ``BodyError/tooLarge(limit:)`` past the bound.
    package func bufferedBytes(upTo maxBytes: Int) throws -> Data? {
        switch payload {
        case .streamed(let body):
            return try body.bufferedBytes(upTo: maxBytes)
        case .whole(let bytes):
            if bytes.count > maxBytes { throw BodyError.tooLarge(limit: maxBytes) }
            return bytes
        }
    }

    /// The status, for short.
    public var status: HTTPResponse.Status { head.status }
}

/// Metrics held by reference, never changed once made (a change makes a new box).
final class MetricsBox: Sendable {
    let metrics: TransferMetrics

    init(_ metrics: TransferMetrics) { self.metrics = metrics }
}

/// Where a ``DataResponse``'s metrics are kept.
enum MetricsSource: Sendable {
    /// In the call's task, as the transport reported them (``SessionTask/metrics``): they no longer change once the
    /// call has its response, and keeping them there saved a box per call. The response keeps its task alive.
    case task(SessionTask)
    /// In a box of their own: metrics given to the response, or reported by a transport in its ``Response``.
    case box(MetricsBox)

    var metrics: TransferMetrics? {
        switch self {
        case .task(let task): task.metrics
        case .box(let box): box.metrics
        }
    }
}
