import CoreMetrics
import CourierCore
import HTTPTypes

/// Measures one call: in flight from its first start to its end, then counted, timed and sized under
/// its outcome's dimensions. A session makes one per task.
final class MetricsEventListener: EventListener {
    private let instruments: Instruments
    private let target: Instruments.Target
    private struct Call {
        var started: ContinuousClock.Instant?
        var ended = false
        var bytesSent: Int64 = 0
        var bytesReceived: Int64 = 0
        var measured = false
    }
    private let call = Locked(Call())

    init(instruments: Instruments, request: HTTPRequest) {
        self.instruments = instruments
        self.target = instruments.target(of: request)
    }

    func taskResumed(_ task: SessionTask) {
        let first = call.withLock { call -> Bool in
            guard call.started == nil, !call.ended else { return false }
            call.started = .now
            return true
        }
        if first { instruments.active(target).increment() }
    }

    func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        call.withLock { call in
            call.measured = true
            call.bytesSent += metrics.bytesSent
            call.bytesReceived += metrics.bytesReceived
        }
    }

    func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        end(task, status: response.status.code, error: nil)
    }

    func taskFailed(_ task: SessionTask, error: CourierError) {
        end(task, status: error.response?.status.code, error: error)
    }

    private func end(_ task: SessionTask, status: Int?, error: CourierError?) {
        let now = ContinuousClock.now
        guard let call = call.withLock({ call -> Call? in
            guard !call.ended else { return nil }
            call.ended = true
            return call
        }) else { return }
        if call.started != nil { instruments.active(target).decrement() }
        let errorType = error.map { TelemetryNames.errorType($0.kind) }
        let outcome = instruments.outcome(target, statusClass: Instruments.statusClass(status), errorType: errorType)
        outcome.requests.increment()
        if let started = call.started {
            let elapsed = now - started
            outcome.duration.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        // Without a transport's measurements (a mock, say), the task's own progress says what moved.
        let sent = call.measured ? call.bytesSent : task.uploadProgress.completed
        let received = call.measured ? call.bytesReceived : task.downloadProgress.completed
        outcome.requestBodySize.record(sent)
        outcome.responseBodySize.record(received)
    }
}
