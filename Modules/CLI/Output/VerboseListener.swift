import CourierCore
import CourierCurl
import HTTPTypes

/// `-v`: prints every request head as it goes out and every response head as it arrives, redirect
/// hops included, to stderr; escaped when stderr is a terminal (a redirect's `Location` and every
/// header are the server's choice).
struct VerboseListener: EventListener {
    /// The HTTP version the command line forced, to label heads.
    let version: CurlTransport.Configuration.HTTPVersion
    /// True when stderr is a terminal, asked once rather than per head.
    let terminal: Bool

    init(version: CurlTransport.Configuration.HTTPVersion, terminal: Bool = Console.Stream.error.isTerminal) {
        self.version = version
        self.terminal = terminal
    }

    func requestSent(_ task: SessionTask, request: HTTPRequest) {
        let label = HeadFormatter.knownVersion(scheme: request.scheme, preference: version)
        Console.write(HeadFormatter.format(request, version: label, terminal: terminal), to: .error)
    }

    func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        let label = HeadFormatter.knownVersion(scheme: task.currentRequest.scheme, preference: version)
        Console.write(HeadFormatter.format(response, version: label, terminal: terminal), to: .error)
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
