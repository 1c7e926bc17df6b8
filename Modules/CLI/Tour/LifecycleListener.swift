import CourierCore
import HTTPTypes

/// Prints a task's lifecycle events as they happen, time-stamped from the first one, for the
/// tour's suspend-and-resume step. Progress events are many, so only one in a quarter second is
/// shown.
final class LifecycleListener: EventListener {
    private struct State {
        var start: ContinuousClock.Instant?
        var lastProgress: ContinuousClock.Instant?
    }

    private let narrator: TourNarrator
    private let state = Locked(State())

    init(narrator: TourNarrator) { self.narrator = narrator }

    /// Prints a line among the events, with the same time stamp.
    func note(_ text: String) { print("· " + text) }

    func taskCreated(_ task: SessionTask) { print("taskCreated (task \(task.id), \(task.state))") }
    func taskResumed(_ task: SessionTask) { print("taskResumed") }
    func taskSuspended(_ task: SessionTask) { print("taskSuspended after " + ByteFormatting.count(task.downloadProgress.completed, "byte", "bytes")) }
    func taskCancelled(_ task: SessionTask) { print("taskCancelled") }
    func requestSent(_ task: SessionTask, request: HTTPRequest) { print("requestSent \(request.method) \(request.path ?? "")") }
    func responseHeadReceived(_ task: SessionTask, response: HTTPResponse) {
        print("responseHeadReceived " + TourContext.status(response))
    }
    func downloadProgress(_ task: SessionTask, progress: TransferProgress) {
        let now = ContinuousClock.now
        let show: Bool = state.withLock { state in
            if let last = state.lastProgress, now - last < .milliseconds(250), !progress.isFinished { return false }
            state.lastProgress = now
            return true
        }
        if show { print("downloadProgress \(progress)") }
    }
    func metricsCollected(_ task: SessionTask, metrics: TransferMetrics) {
        print("metricsCollected total \(TimingReport.milliseconds(metrics.total))")
    }
    func taskCompleted(_ task: SessionTask, response: HTTPResponse) { print("taskCompleted \(response.status.code)") }
    func taskFailed(_ task: SessionTask, error: CourierError) { print("taskFailed \(error)") }

    private func print(_ text: String) {
        let now = ContinuousClock.now
        let start = state.withLock { state in
            if state.start == nil { state.start = now }
            return state.start ?? now
        }
        let (seconds, attoseconds) = (now - start).components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let stamp = "+\(millis / 1000).\(String(repeating: "0", count: 3 - String(millis % 1000).count))\(millis % 1000)s"
        narrator.detail(stamp + "  " + text)
    }
}
