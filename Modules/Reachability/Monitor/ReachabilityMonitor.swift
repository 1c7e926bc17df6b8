import CourierCore
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Watches whether the host as a whole, a host name or an address can be reached, and through
/// which interface: AFNetworking's `AFNetworkReachabilityManager` on Linux, driven by rtnetlink.
///
/// ```swift
/// let monitor = ReachabilityMonitor(target: .host("example.com"))
/// monitor.onChange { status in print(status) }   // e.g. "reachable via wired (eth0)"
/// try monitor.start()
/// ```
///
/// **What "reachable" means.** The kernel has a route to the target (for ``ReachabilityTarget/anyNetwork``:
/// a default route) whose interface is up and running. It is asked, never the network: nothing
/// is sent. A route is not a working server — see docs/reachability.md for what this cannot know.
///
/// **Lifecycle.** The status is ``ReachabilityStatus/unknown`` until ``start()``; the first
/// status follows promptly (after resolving a host name), and then one delivery per change.
/// `start()` and ``stop()`` are idempotent; after `stop()` returns nothing more is delivered and
/// the status is `unknown` again. The monitor runs one thread of its own while started and
/// holds two netlink sockets and an eventfd; `stop()` (or releasing the monitor) gives them back.
///
/// **Delivery.** Handlers registered with ``onChange(_:)`` run on the monitor's thread (keep
/// them fast, as listeners are), or asynchronously on the `queue` given at init; ``updates()``
/// offers the same changes as an `AsyncStream`.
public final class ReachabilityMonitor: Sendable {
    /// What the monitor watches.
    public let target: ReachabilityTarget
    private let queue: DispatchQueue?
    private let evaluator: ReachabilityEvaluator
    private let makeKernel: @Sendable () throws(KernelQueryError) -> any KernelView
    private let state = Locked(State())

    private struct State: Sendable {
        var status: ReachabilityStatus = .unknown
        var run: Run?
        var generation: UInt64 = 0
        var nextID: UInt64 = 0
        var handlers: [(id: UInt64, handler: @Sendable (ReachabilityStatus) -> Void)] = []
        var continuations: [UInt64: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        /// When the status last left `notReachable`.
        var outageEnded: ContinuousClock.Instant?
    }

    private struct Run: @unchecked Sendable {
        // @unchecked: `pthread_t` is an integer handle on Linux; it is joined or detached once,
        // by whoever removes the run from `state` under its lock.
        var loop: MonitorLoop
        var thread: pthread_t
    }

    /// A monitor for `target`. Handlers run on the monitor's thread, or asynchronously on
    /// `queue` when one is given (`.main` for AFNetworking's behaviour in a program that runs it).
    /// There is deliberately no `init()`: say what to watch (``ReachabilityTarget/anyNetwork`` for
    /// AFNetworking's `+manager`).
    public convenience init(target: ReachabilityTarget, queue: DispatchQueue? = nil) {
        self.init(target: target, queue: queue, sysfsRoot: "/sys/class/net") { () throws(KernelQueryError) in
            try RouteNetlinkQuery()
        }
    }

    /// A monitor reading interface kinds under `sysfsRoot` and asking `makeKernel`'s view (a
    /// fake one in tests) instead of rtnetlink; notifications still come from rtnetlink.
    init(
        target: ReachabilityTarget,
        queue: DispatchQueue?,
        sysfsRoot: String,
        makeKernel: @escaping @Sendable () throws(KernelQueryError) -> any KernelView
    ) {
        if case .address(let address) = target, address.isUnspecified {
            self.target = .anyNetwork
        } else {
            self.target = target
        }
        self.queue = queue
        self.makeKernel = makeKernel
        self.evaluator = ReachabilityEvaluator(classifier: InterfaceClassifier(sysfsRoot: sysfsRoot))
    }

    deinit {
        stop()
        let continuations = state.withLock { state in
            defer { state.continuations = [:] }
            return state.continuations.values
        }
        for continuation in continuations { continuation.finish() }
    }

    /// The latest status.
    public var status: ReachabilityStatus { state.withLock { $0.status } }

    /// True when the latest status is reachable (AFNetworking's `isReachable`).
    public var isReachable: Bool { status.isReachable }

    /// True between ``start()`` and ``stop()``.
    public var isRunning: Bool { state.withLock { $0.run != nil } }

    /// Starts watching; does nothing when already started. The first status is delivered as soon
    /// as the kernel has been asked (and a host name resolved), even when it equals the last one
    /// seen before a `stop()` (AFNetworking posts on every start too).
    ///
    /// Throws ``ReachabilityError`` when the rtnetlink socket cannot be opened (a sandbox that
    /// forbids netlink) or the thread cannot be started.
    public func start() throws(ReachabilityError) {
        let generation: UInt64? = state.withLock { state in
            guard state.run == nil else { return nil }
            state.generation += 1
            return state.generation
        }
        guard let generation else { return }
        let loop = try MonitorLoop(
            target: target, generation: generation, evaluator: evaluator, makeKernel: makeKernel,
            publish: { [weak self] status, generation, first in
                self?.publish(status, generation: generation, first: first)
            }
        )
        // Register the run before the thread can publish, so its first status is not dropped.
        let registered = state.withLock { state -> Bool in
            guard state.generation == generation, state.run == nil else { return false }
            state.run = Run(loop: loop, thread: pthread_t())
            return true
        }
        guard registered else {  // another start won the race
            loop.discard()
            return
        }
        let thread: pthread_t
        do {
            thread = try loop.spawn()
        } catch {
            // Only this start's run: a stop() and a newer start() may have come in between.
            state.withLock { if $0.generation == generation { $0.run = nil } }
            throw error
        }
        let orphaned = state.withLock { state -> Bool in
            guard state.generation == generation, state.run != nil else { return true }
            state.run?.thread = thread
            return false
        }
        // A stop() that ran between spawning and recording the thread could not join it.
        if orphaned {
            loop.requestStop()
            pthread_join(thread, nil)
        }
    }

    /// Stops watching; does nothing when not started. When it returns, no handler runs any more
    /// (unless called from a handler, which then finishes first; with a `queue`, a handler
    /// already running there may still finish), the thread has ended, its sockets are closed,
    /// and the status is `unknown`.
    public func stop() {
        let run: Run? = state.withLock { state in
            guard let run = state.run else { return nil }
            state.run = nil
            state.generation += 1
            state.status = .unknown
            return run
        }
        guard let run else { return }
        run.loop.requestStop()
        if pthread_equal(run.thread, pthread_t()) != 0 {
            return  // start() has not recorded the thread yet; it joins it itself
        }
        if pthread_equal(run.thread, pthread_self()) != 0 {
            pthread_detach(run.thread)  // called from a handler: the thread ends after it returns
        } else {
            pthread_join(run.thread, nil)
        }
    }

    /// Asks the kernel again now, as a network change would; does nothing when not started.
    func refresh() {
        state.withLock { $0.run?.loop }?.requestRefresh()
    }

    /// Calls `handler` with the first status after each start and with every change, until the
    /// returned observation is cancelled. See the type's notes for the thread it runs on.
    @discardableResult
    public func onChange(_ handler: @escaping @Sendable (ReachabilityStatus) -> Void) -> ReachabilityObservation {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.handlers.append((state.nextID, handler))
            return state.nextID
        }
        return ReachabilityObservation { [weak self] in
            self?.state.withLock { $0.handlers.removeAll { $0.id == id } }
        }
    }

    /// The statuses as an `AsyncStream`: the current one first when the monitor is running and
    /// knows it, then the first status after each start and every change. Nothing arrives
    /// while the monitor is stopped; the stream ends when the monitor is released or the
    /// consumer stops iterating.
    public func updates(
        bufferingPolicy: AsyncStream<ReachabilityStatus>.Continuation.BufferingPolicy = .bufferingNewest(64)
    ) -> AsyncStream<ReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ReachabilityStatus.self, bufferingPolicy: bufferingPolicy)
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
        }
        state.withLock { state in
            state.continuations[id] = continuation
            if state.run != nil, state.status != .unknown { continuation.yield(state.status) }
        }
        return stream
    }

    /// Waits until the target is reachable, at most `timeout`. Returns at once with `true` when
    /// it already is, and with `false` when the monitor is not running, the time is up, or the
    /// calling task is cancelled.
    public func waitUntilReachable(timeout: Duration) async -> Bool {
        if status.isReachable { return true }
        guard isRunning else { return false }
        let updates = self.updates()
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await status in updates where status.isReachable { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let reachable = await group.next() ?? false
            group.cancelAll()
            return reachable || self.status.isReachable
        }
    }

    /// True when the status is `notReachable` now, or stopped being so less than `window` ago:
    /// how ``OfflineRetrier`` tells a failure caused by a network outage from any other.
    public func wasNotReachable(within window: Duration) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            if state.status == .notReachable { return true }
            guard let ended = state.outageEnded else { return false }
            return now - ended <= window
        }
    }

    // MARK: delivery

    private func publish(_ status: ReachabilityStatus, generation: UInt64, first: Bool) {
        let delivery = state.withLock { state -> ([@Sendable (ReachabilityStatus) -> Void], [AsyncStream<ReachabilityStatus>.Continuation])? in
            guard state.generation == generation else { return nil }
            let previous = state.status
            if previous == .notReachable, status != .notReachable { state.outageEnded = .now }
            guard first || previous != status else { return nil }
            state.status = status
            return (state.handlers.map(\.handler), Array(state.continuations.values))
        }
        guard let (handlers, continuations) = delivery else { return }
        for continuation in continuations { continuation.yield(status) }
        if let queue {
            queue.async { [weak self] in
                guard let self else { return }
                let current = self.state.withLock { state in
                    state.generation == generation ? state.handlers.map(\.handler) : []
                }
                for handler in current { handler(status) }
            }
        } else {
            for handler in handlers { handler(status) }
        }
    }
}

/// A registration made with ``ReachabilityMonitor/onChange(_:)``; ``cancel()`` removes it.
public final class ReachabilityObservation: Sendable {
    private let removal: Locked<(@Sendable () -> Void)?>

    init(removal: @escaping @Sendable () -> Void) {
        self.removal = Locked(removal)
    }

    /// Stops the handler from being called again; safe to call more than once.
    public func cancel() {
        let removal = self.removal.withLock { removal in
            defer { removal = nil }
            return removal
        }
        removal?()
    }
}
