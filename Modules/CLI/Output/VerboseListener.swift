import CourierCore
import CourierCurl
import HTTPTypes

/// `-v`: prints every request head as it goes out and every response head as it arrives, redirect
/// hops included, to stderr.
struct VerboseListener: EventListener {
    /// The HTTP version the command line forced, to label heads.
    let version: CurlTransport.Configuration.HTTPVersion

    func requestSent(_ task: SessionTask, request: HTTPRequest) {
        let label = HeadFormatter.knownVersion(scheme: request.scheme, preference: version)
        Console.write(HeadFormatter.format(request, version: label), to: .error)
    }

    func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        let label = HeadFormatter.knownVersion(scheme: task.currentRequest.scheme, preference: version)
        Console.write(HeadFormatter.format(response, version: label), to: .error)
    }
}

/// Keeps the metrics of the last exchange a task measured, for `--timing`.
final class MetricsRecorder: EventListener {
    private let latest = Locked<TransferMetrics?>(nil)

    /// The last metrics reported, if any.
    var metrics: TransferMetrics? { latest.withLock { $0 } }

    func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        latest.withLock { $0 = metrics }
    }
}
