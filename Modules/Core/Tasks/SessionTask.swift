import Dispatch
import FoundationEssentials
import HTTPTypes
import Synchronization

/// One request's life inside a session: its identity, state, progress and controls.
///
/// Every call a session runs has one, whether it came from a task handle (``DataTask``,
/// ``DownloadTask``) or from a structured call such as ``Session/data(for:body:)``; listeners
/// receive it with every event. `resume()`, `suspend()` and `cancel()` are safe from any thread.
public final class SessionTask: Sendable, Hashable, Identifiable, CustomStringConvertible {
    /// What kind of work a task does.
    public enum Kind: Sendable, Hashable {
        /// Response body into memory.
        case data
        /// Request body from data, a file or a stream; response body into memory.
        case upload
        /// Response body into a file.
        case download
    }

    /// Unique within the process.
    public let id: UInt64
    /// The kind.
    public let kind: Kind
    /// The request as the session built it, before interceptors and redirects.
    public let originalRequest: HTTPRequest
    /// The identity of the session that made the task.
    public let sessionID: UInt64

    /// Who hears the task's events: the session's listeners until the task has completed and its last
    /// exchange has ended (for ``Session/send(_:body:)``, once the body is read or dropped), then nobody.
    ///
    /// A finished task lets go of its listeners and progress handlers, as AFNetworking removes a task's
    /// delegate on completion: a listener that keeps its events keeps their tasks, and a handler often
    /// captures its own task, so a task that kept them would make a cycle that outlives the session
    /// (LeakSanitizer found every task of a recording listener leaked, and the soak every task cancelled from
    /// its own progress handler).
    var listener: any EventListener {
        guard hasListener else { return Self.silent }
        return storage.withLock { $0.listener } ?? Self.silent
    }
    private static let silent: any EventListener = SilentEventListener()
    /// Whether the task was given a listener that hears anything: a task of a session without listeners (most
    /// of them) then never takes its lock to find out, at each of its events.
    private let hasListener: Bool
    /// Running, suspended or cancelled: its state is kept in ``Storage``, under the task's lock.
    var control: TransferControl { TransferControl(task: self) }
    /// The session's completion queue: where progress handlers run when no queue is named.
    let callbackQueue: DispatchQueue

    /// What the session gives a task handle to run: `run` receives the task and whether the session
    /// admitted it when it was resumed (false once the session is invalidated).
    ///
    /// The task comes as an argument rather than captured: the task keeps its hooks until it starts, so
    /// hooks that captured it would keep a task that is never resumed alive for ever (LeakSanitizer found
    /// such a cycle).
    struct Hooks: Sendable {
        let run: @Sendable (_ task: SessionTask, _ admitted: Bool) async -> Void
        let abandon: @Sendable (_ task: SessionTask, CourierError) -> Void
    }

    private struct ProgressHandler {
        let queue: DispatchQueue
        let handler: @Sendable (TransferProgress) -> Void
    }

    private struct Storage {
        var machine = TaskStateMachine()
        /// The state of ``control``: here rather than in an object of its own, one allocation and one lock fewer
        /// per call, and changed under the same lock as `machine`, so the two always agree.
        var control = TransferControlState(state: .running)
        var hooks: Hooks?
        var runner: Task<Void, Never>?
        var currentRequest: HTTPRequest
        var response: HTTPResponse?
        var uploadProgress = TransferProgress.zero
        var downloadProgress = TransferProgress.zero
        /// Here rather than in a box of their own: the call's ``DataResponse`` reads them from the task
        /// (``MetricsSource``), one allocation fewer per call.
        var metrics: TransferMetrics?
        var error: CourierError?
        var taskDescription: String?
        var uploadHandlers: [ProgressHandler] = []
        var downloadHandlers: [ProgressHandler] = []
        /// The session's registry: joined when the task starts, left when it finishes (then
        /// cleared, so leaving happens once). A reference rather than two closures: one object
        /// fewer per call.
        var registry: TaskRegistry?
        /// The session's listeners; cleared by `releaseObservers` (see ``listener``).
        var listener: (any EventListener)?
        /// Exchanges (``RequestContext``s) a transport may still report through.
        var exchangesInFlight = 0
        /// True once the listeners and handlers are let go: later handlers are never called.
        var observersReleased = false
        /// A task of a context made outside any session (``RequestContext/init(request:kind:timeouts:trustEvaluator:listener:options:)``):
        /// it never completes, so it lets go of its observers when its context ends.
        var standalone = false
    }

    /// Inside the task rather than in a block of its own (``Locked``): one `malloc` fewer per call.
    private let storage: InlineLocked<Storage>
    private static let counter = Atomic<UInt64>(0)

    init(
        kind: Kind,
        request: HTTPRequest,
        sessionID: UInt64,
        listener: any EventListener,
        callbackQueue: DispatchQueue,
        registry: TaskRegistry?
    ) {
        self.id = Self.counter.add(1, ordering: .relaxed).newValue
        self.kind = kind
        self.originalRequest = request
        self.sessionID = sessionID
        self.callbackQueue = callbackQueue
        self.hasListener = !(listener is SilentEventListener)
        self.storage = InlineLocked(Storage(currentRequest: request, registry: registry, listener: listener))
    }

    // MARK: State

    /// The current state.
    public var state: TaskState { storage.withLock { $0.machine.state } }
    /// The request on the wire now: after interceptors, the latest redirect hop.
    public var currentRequest: HTTPRequest { storage.withLock { $0.currentRequest } }
    /// The latest response head, once one arrived.
    public var response: HTTPResponse? { storage.withLock { $0.response } }
    /// Request body progress; the total falls back to the request's `Content-Length`.
    public var uploadProgress: TransferProgress { storage.withLock { $0.uploadProgress } }
    /// Response body progress; the total is the response's `Content-Length` when known.
    public var downloadProgress: TransferProgress { storage.withLock { $0.downloadProgress } }
    /// The metrics of the latest exchange, when the transport measured it.
    public var metrics: TransferMetrics? { storage.withLock { $0.metrics } }
    /// Whether a transport reported metrics, without copying them out.
    var hasMetrics: Bool {
        // A switch on the case: `!= nil` copied the whole optional `TransferMetrics` through its value witnesses
        // (Callgrind: about 400 instructions per call).
        storage.withLock { state in
            switch state.metrics {
            case .some: return true
            case .none: return false
            }
        }
    }
    /// The error the task failed with, once it failed.
    public var error: CourierError? { storage.withLock { $0.error } }
    /// A label of your choosing (AFNetworking's `taskDescription`).
    public var taskDescription: String? {
        get { storage.withLock { $0.taskDescription } }
        set { storage.withLock { $0.taskDescription = newValue } }
    }

    // MARK: Controls

    /// Starts the task, or continues it after `suspend()`. Does nothing when running or done.
    public func resume() {
        let (action, run, registry) = storage.withLock { storage -> (TaskStateMachine.ResumeAction, (@Sendable (SessionTask, Bool) async -> Void)?, TaskRegistry?) in
            let action = storage.machine.resume()
            // Told under the lock, so racing suspend()/resume() reach the transfer in the machine's order.
            if action == .unpause { storage.control.transition(to: .running)?.deliver() }
            guard action == .start else { return (action, nil, nil) }
            let run = storage.hooks?.run
            storage.hooks = nil
            return (action, run, storage.registry)
        }
        switch action {
        case .none:
            return
        case .unpause:
            listener.taskResumed(self)
        case .start:
            let admitted = registry?.register(self) ?? true
            listener.taskResumed(self)
            guard let run else { return }
            let runner = Task { await run(self, admitted) }
            let cancelledMeanwhile = storage.withLock { storage -> Bool in
                switch storage.machine.phase {
                case .completed: return false
                case .canceling: return true
                default: storage.runner = runner; return false
                }
            }
            // A cancel() between starting and storing the runner found no runner to cancel.
            if cancelledMeanwhile { runner.cancel() }
        }
    }

    /// Pauses the transfer: no bytes move until `resume()`. Does nothing unless running.
    public func suspend() {
        let action = storage.withLock { storage -> TaskStateMachine.SuspendAction in
            let action = storage.machine.suspend()
            // Told under the lock, so racing suspend()/resume() reach the transfer in the machine's order.
            if action == .pause { storage.control.transition(to: .suspended)?.deliver() }
            return action
        }
        guard action == .pause else { return }
        listener.taskSuspended(self)
    }

    /// Cancels the task, even while suspended; it completes with a cancellation error.
    public func cancel() {
        let (action, hooks, runner, release) = storage.withLock { storage -> (TaskStateMachine.CancelAction, Hooks?, Task<Void, Never>?, TransferControlState.Release?) in
            let action = storage.machine.cancel()
            guard action != .none else { return (action, nil, nil, nil) }
            let hooks = storage.hooks
            if action == .abandon { storage.hooks = nil }
            return (action, hooks, storage.runner, storage.control.transition(to: .cancelled))
        }
        guard action != .none else { return }
        listener.taskCancelled(self)
        release?.deliver()
        switch action {
        case .abandon:
            hooks?.abandon(self, CourierError(stage: .session, request: originalRequest, underlyingError: CancellationError()))
        case .abort:
            runner?.cancel()
        case .none:
            break
        }
    }

    /// Registers a handler for upload progress, called on `queue` (the session's serial completion
    /// queue when `nil`, so updates arrive in order). A handler registered once bytes have moved is
    /// first called with the progress so far, so one registered on a task already running (an
    /// `upload` starts at once) or already completed still sees where it stands, and its end.
    /// Handlers are dropped when the task completes and its last exchange has ended (for
    /// ``Session/send(_:body:)``, once the body is read or dropped), so one may capture its task.
    public func onUploadProgress(queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (TransferProgress) -> Void) {
        register(ProgressHandler(queue: queue ?? callbackQueue, handler: handler), in: \.uploadHandlers, progress: \.uploadProgress)
    }

    /// Registers a handler for download progress, as ``onUploadProgress(queue:_:)`` does for upload
    /// progress: called on `queue` (the session's serial completion queue when `nil`), first with the
    /// progress so far when bytes have already arrived, and dropped when the task and its last exchange
    /// have ended.
    public func onDownloadProgress(queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (TransferProgress) -> Void) {
        register(ProgressHandler(queue: queue ?? callbackQueue, handler: handler), in: \.downloadHandlers, progress: \.downloadProgress)
    }

    /// Adds `entry` to its list while the task keeps handlers, and hands it the progress so far. The first call is
    /// queued under the lock, so that every later report, which takes the lock before it queues its own, comes
    /// after it: the handler never sees progress go back. (A task started at once, such as an `upload`, could
    /// finish before its caller registered: the handler then heard nothing, not even the end.)
    private func register(
        _ entry: ProgressHandler,
        in handlers: WritableKeyPath<Storage, [ProgressHandler]>,
        progress: KeyPath<Storage, TransferProgress>
    ) {
        storage.withLock { storage in
            if !storage.observersReleased { storage[keyPath: handlers].append(entry) }
            let current = storage[keyPath: progress]
            if current.completed > 0 { entry.queue.async { entry.handler(current) } }
        }
    }

    // MARK: Lifecycle plumbing for the session

    /// Runs `body` on the state of ``control``, under the task's lock.
    func withControlState<Result>(_ body: (inout TransferControlState) -> Result) -> Result {
        storage.withLock { body(&$0.control) }
    }

    /// Marks a task made for a standalone context (see `Storage.standalone`): a recording listener and
    /// the task it records would otherwise keep each other alive (LeakSanitizer found the cycle). The
    /// task starts running, as a session's task is by the time a transport sees it, so `suspend()` and
    /// `cancel()` act at once; no `taskResumed` event is reported, since nothing resumed it.
    func makeStandalone() {
        storage.withLock {
            $0.standalone = true
            _ = $0.machine.startInline()
        }
    }

    /// False until the first `resume()` (or an inline start).
    var hasStarted: Bool { storage.withLock { $0.machine.phase != .notStarted } }

    func install(_ hooks: Hooks) {
        storage.withLock { $0.hooks = hooks }
    }

    /// Marks a task that a structured call runs inline as running; false when the session did
    /// not admit it (invalidated).
    func startInline() -> Bool {
        let (started, registry) = storage.withLock { ($0.machine.startInline(), $0.registry) }
        guard started else { return false }
        let admitted = registry?.register(self) ?? true
        listener.taskResumed(self)
        return admitted
    }

    /// Ends the task: state `.completed`, then the final event, then `resolve` (handing out the
    /// result), so the event happens before any awaiting caller resumes. Only the first call has
    /// an effect.
    func finish(_ outcome: Result<HTTPResponse, CourierError>, resolve: () -> Void = {}) {
        let ended = storage.withLock { storage -> (registry: TaskRegistry?, listener: any EventListener)? in
            guard storage.machine.complete() else { return nil }
            storage.runner = nil
            storage.hooks = nil
            if case .failure(let error) = outcome { storage.error = error }
            let registry = storage.registry
            storage.registry = nil
            let listener = storage.listener ?? Self.silent
            // The final event still goes to `listener`, taken above.
            if storage.exchangesInFlight == 0 { Self.releaseObservers(&storage) }
            return (registry, listener)
        }
        guard let (registry, listener) = ended else { return }
        registry?.remove(self)
        switch outcome {
        case .success(let head): listener.taskCompleted(self, response: head)
        case .failure(let error): listener.taskFailed(self, error: error)
        }
        resolve()
    }

    /// Takes and releases the task's lock. A transport that hands values to its caller through a continuation
    /// calls it on its own thread just before the resume, and the caller just after: the continuation already
    /// orders the two, but inside the uninstrumented concurrency runtime, where ThreadSanitizer cannot see it.
    /// Borrowing the task's lock makes the hand-over visible without a lock of the transport's own per call.
    package func orderHandOver() {
        storage.withLock { _ in }
    }

    /// A ``RequestContext`` for this task was made: a transport may report through it until it is freed.
    func exchangeBegan() {
        storage.withLock { $0.exchangesInFlight += 1 }
    }

    /// A ``RequestContext`` for this task was freed; the last one after completion lets go of the observers.
    func exchangeEnded() {
        storage.withLock { storage in
            storage.exchangesInFlight -= 1
            if storage.exchangesInFlight == 0, storage.machine.phase == .completed || storage.standalone {
                Self.releaseObservers(&storage)
            }
        }
    }

    private static func releaseObservers(_ storage: inout Storage) {
        storage.listener = nil
        storage.uploadHandlers = []
        storage.downloadHandlers = []
        storage.observersReleased = true
    }

    func recordRequestSent(_ request: HTTPRequest) {
        storage.withLock { storage in
            storage.currentRequest = request
            if storage.uploadProgress.total == nil,
               let length = request.headerFields.contentLength {
                storage.uploadProgress.total = length
            }
        }
        listener.requestSent(self, request: request)
    }

    /// `contentLength` is the head's `Content-Length`, read by the caller (a transport reads it anyway).
    func recordResponseHead(_ response: HTTPResponse, contentLength: Int64?) {
        storage.withLock { storage in
            storage.response = response
            storage.downloadProgress = TransferProgress(completed: 0, total: contentLength)
        }
        listener.responseHeadReceived(self, response: response)
    }

    func recordUploadProgress(_ progress: TransferProgress) {
        let (value, handlers) = storage.withLock { storage -> (TransferProgress, [ProgressHandler]) in
            storage.uploadProgress.completed = progress.completed
            if let total = progress.total { storage.uploadProgress.total = total }
            return (storage.uploadProgress, storage.uploadHandlers)
        }
        listener.uploadProgress(self, progress: value)
        for entry in handlers { entry.queue.async { entry.handler(value) } }
    }

    func recordDownloadProgress(_ progress: TransferProgress) {
        let (value, handlers) = storage.withLock { storage -> (TransferProgress, [ProgressHandler]) in
            storage.downloadProgress.completed = progress.completed
            if let total = progress.total { storage.downloadProgress.total = total }
            return (storage.downloadProgress, storage.downloadHandlers)
        }
        listener.downloadProgress(self, progress: value)
        for entry in handlers { entry.queue.async { entry.handler(value) } }
    }

    func recordMetrics(_ metrics: TransferMetrics) {
        storage.withLock { $0.metrics = metrics }
        listener.metricsCollected(self, metrics: metrics)
    }

    func recordRedirect(from response: HTTPResponse, to request: HTTPRequest) {
        storage.withLock { storage in
            storage.currentRequest = request
            storage.uploadProgress = .zero
        }
        listener.redirecting(self, response: response, to: request)
    }

    // MARK: Identity

    public static func == (lhs: SessionTask, rhs: SessionTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// e.g. `SessionTask #3 (data, running) GET http://…`.
    public var description: String {
        "SessionTask #\(id) (\(kind), \(state)) \(originalRequest.method) \(originalRequest.url?.absoluteString ?? "")"
    }
}
