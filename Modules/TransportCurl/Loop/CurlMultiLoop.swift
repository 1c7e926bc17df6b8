internal import CCurl
import CourierCore
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One libcurl multi handle driven by a dedicated thread. Other threads talk to it only through
/// ``submit(_:)``; easy and multi handles never leave the thread.
///
/// A pass of the loop: apply queued commands, fail the transfers whose time ran out while they waited for a
/// connection, `curl_multi_perform`, read finished transfers, fail those libcurl still holds well past their
/// request deadline (``OverdueWatch``), start the waiting transfers their connections freed, perhaps hold the
/// calls that finished so that their callers are resumed with the next ones (``CompletionCoalescing``: the loop then
/// waits for the next event or the hold's end and runs another pass), then `flush` every transfer a callback touched
/// (resuming continuations, reporting events) outside of any curl callback, and finally wait until a socket, a
/// command, the next waiting transfer's deadline or the watch's next check wakes it: polling for a moment
/// (``IdlePolling``), then asleep in `curl_multi_poll`.
final class CurlMultiLoop: @unchecked Sendable {
    // @unchecked: `multi`, `active`, `admission`, `overdueWatch`, `idlePolling`, `coalescing`, `held`, `dirty`,
    // `admitted`, `unstamped`, `recentFields`, `connectionSockets` and the spare lists are touched only on the loop
    // thread; `commands` is a Locked queue, `registry` a Locked table, and `asleep`/`threadID`/`abandoned` are atomics.

    enum Command {
        case job(UnownedJob)
        case add(CurlTransfer, CurlTransfer.HeadContinuation)
        case updatePause(CurlTransfer)
        case cancel(CurlTransfer, any Error)
        case shutdown
    }

    private let multi: UnsafeMutableRawPointer
    /// The queue, and whether the loop has closed it (then nothing more is accepted, and
    /// `curl_multi_wakeup` is never called again: the multi handle may be gone).
    private struct Queue {
        var commands: [Command] = []
        var closed = false
    }
    private let queue = Locked(Queue())
    // The loop thread's own state, below, is marked `@exclusivity(unchecked)`: only the loop thread touches it, in
    // the loop's methods and libcurl's callbacks, and each access is a change to a value of the standard library's
    // (or a pure one of this module's) that calls nothing of the loop's, so no two can overlap. The runtime's check
    // of each access (a thread-local lookup and an access-set insertion, about 85 instructions; Callgrind counted 16
    // of them per small call) is then a cost with nothing to find.
    /// Transfers whose pause could not be applied yet (no connection): retried after each pass.
    @exclusivity(unchecked) private var pausePending: [CurlTransfer] = []
    private let asleep = Atomic<Bool>(false)
    @exclusivity(unchecked) private(set) var active: [ObjectIdentifier: CurlTransfer] = [:]
    /// Transfers that need a connection of their own (cleartext HTTP/1.1, a fresh connection) wait here, not
    /// in libcurl, while their host's connections are all busy (see ``HostAdmission`` for why).
    @exclusivity(unchecked) private var admission: HostAdmission<CurlTransfer, CurlOptions.AdmissionKey>
    /// The request deadlines of the transfers in the multi handle, for those libcurl would let wait past them
    /// (see ``OverdueWatch`` for why).
    @exclusivity(unchecked) private var overdueWatch = OverdueWatch()
    /// How long the thread polls before it sleeps (see ``IdlePolling`` for why).
    @exclusivity(unchecked) private var idlePolling: IdlePolling
    /// Whether the callers of finished transfers are resumed now or together with the next ones (see
    /// ``CompletionCoalescing`` for why), and the transfers held meanwhile: finished, their head not yet handed over,
    /// still marked dirty so that nothing lists them twice.
    @exclusivity(unchecked) private var coalescing: CompletionCoalescing
    @exclusivity(unchecked) private var held: [CurlTransfer] = []
    /// Transfers with a request limit added since the last `curl_multi_perform`: their limit counts from the
    /// next one, as libcurl's does (``stampOverdueDeadlines()``).
    @exclusivity(unchecked) private var unstamped: [CurlTransfer] = []
    /// Waiting transfers whose host has a free connection again, to be started after this pass's reads.
    @exclusivity(unchecked) private var admitted: [CurlTransfer] = []
    /// Easy handles of finished transfers, ready again: `curl_easy_init` and `curl_easy_cleanup`
    /// (or even `curl_easy_reset`) per request cost more than re-setting a request's options.
    @exclusivity(unchecked) private var idleHandles: [PooledEasy] = []
    private static let idleHandleLimit = 128
    /// Handles kept out of the pool while the connection they were given may still hold their address
    /// (`CurlMultiLoop+QueuedRequests.swift`).
    @exclusivity(unchecked) var parkedHandles = ParkedHandles<PooledEasy, ConnectionSockets.Endpoints>()
    /// Kept handles whose connection libcurl closed, to be freed once the libcurl call that closed it has returned.
    @exclusivity(unchecked) var unparkedHandles: [PooledEasy] = []
    /// How many times libcurl has given a request a connection (its prerequest callback), in order.
    @exclusivity(unchecked) var connectionGrants: UInt64 = 0
    /// Common fields and the last head (its template) from the latest responses, reused by the next ones' parsers.
    /// Used only in libcurl's header callback, which runs on the loop thread.
    let recentFields = RecentFields()
    /// The room the next transfer reserves for a body that arrives whole: written here, read on callers' threads.
    let wholeBodyReservation = WholeBodyReservation()
    /// Testing only (``CurlTransport/takeEveryTrustedCallAsProxied()``): the transport's transfers with a trust evaluator
    /// take the proxy's bypass list as naming no host, so that a test can make libcurl reach the server while the
    /// transport reads its handshake as the proxy's. Read on callers' threads as a transfer is made.
    let takesTrustedCallsAsProxied = Atomic<Bool>(false)
    /// The sockets of the loop's connections, so that an idle HTTP/1 connection with bytes waiting is not reused
    /// (`CurlMultiLoop+WaitingInput.swift`). Touched in libcurl's socket and prerequest callbacks, on the loop thread.
    @exclusivity(unchecked) var connectionSockets = ConnectionSockets()
    @exclusivity(unchecked) private var dirty: [CurlTransfer] = []
    /// The other half of each double buffer: a list is swapped with its empty spare, worked through, and
    /// emptied while nothing else refers to its storage. Emptying a list still shared with a copy being
    /// worked through (`removeAll(keepingCapacity:)`) would allocate new storage on every pass.
    @exclusivity(unchecked) private var spareCommands: [Command] = []
    @exclusivity(unchecked) private var spareDirty: [CurlTransfer] = []
    @exclusivity(unchecked) private var spareAdmitted: [CurlTransfer] = []
    @exclusivity(unchecked) private var spareUnstamped: [CurlTransfer] = []
    /// Trust evaluators seen, each with the tag that keeps its connections apart (``trustTag(for:)``).
    private var trustTags: [AnyHashable: Int] = [:]
    private var nextTrustTag = 1
    private static let trustTagLimit = 1024
    /// The curl thread's `pthread_self()`, stored by the thread itself as it starts (so no other thread reads a
    /// value being written); 0 before.
    private let threadID = Atomic<UInt>(0)
    private let configuration: CurlTransport.Configuration
    /// Wake-ups sent, for the benchmark's "wake-ups per request" figure.
    let wakeups = Atomic<Int>(0)
    /// Requests sent again after their connection was lost before any answer (``CurlTransfer/mayResend(after:)``).
    let resends = Atomic<Int>(0)
    /// Time the thread has spent polling without sleeping (``IdlePolling``), in nanoseconds.
    let pollingNanoseconds = Atomic<Int>(0)
    /// Runs Swift jobs on this thread between curl passes. Set once, at the end of `init`.
    private(set) var executor: CurlLoopExecutor! = nil
    /// Whether the thread has freed every handle and ended, and who waits for it.
    private let stopped = Locked(Stopped())
    private struct Stopped {
        var done = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    /// Testing only (``CurlTransport/setThreadEndHook(_:)``): what each curl thread runs as its last step.
    static let threadEndHook = Locked<(@Sendable () -> Void)?>(nil)
    /// Every loop whose thread runs, so a program can stop them all before it exits (``CurlTransport/shutdownAll()``,
    /// ``ExitGuard``); and whether the exit handler has begun, after which no loop starts.
    static let registry = Locked(Registry())
    struct Registry {
        var running: [ObjectIdentifier: CurlMultiLoop] = [:]
        var exiting = false
    }
    /// The process that made the loop: a forked child inherits its parent's list of loops, not their threads.
    let process = getpid()
    /// Set by the exit handler when it gave up waiting for the loop: the thread then leaves its connections and
    /// handles as they are rather than close them while OpenSSL's clean-up may be running.
    let abandoned = Atomic<Bool>(false)

    init(configuration: CurlTransport.Configuration) throws {
        self.configuration = configuration
        admission = HostAdmission(limit: max(1, configuration.maximumConnectionsPerHost))
        idlePolling = IdlePolling(maximum: configuration.idlePolling)
        coalescing = CompletionCoalescing(window: configuration.completionCoalescing)
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else {
            throw TransportError(.other, message: "curl_multi_init failed")
        }
        self.multi = multi
        // A cache smaller than one host's limit would close connections that the next call needs.
        let cached = configuration.maximumConnectionsPerHost > 0
            ? max(configuration.maximumCachedConnections, configuration.maximumConnectionsPerHost)
            : configuration.maximumCachedConnections
        ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, cached)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maximumConnectionsPerHost)
        ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maximumTotalConnections)
        ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, configuration.multiplexing ? 2 : 0)
        executor = CurlLoopExecutor(loop: self)
    }

    /// Starts the thread. The thread keeps the loop alive until `shutdown`.
    func start() throws {
        let exiting = Self.registry.withLock { registry -> Bool in
            if !registry.exiting { registry.running[ObjectIdentifier(self)] = self }
            return registry.exiting
        }
        guard !exiting else {
            endWithoutThread()
            throw TransportError(.shutDown, message: "the program is exiting: no CurlTransport starts once Courier's exit handler has run")
        }
        let box = Unmanaged.passRetained(self)
        var handle = pthread_t()
        let created = pthread_create(&handle, nil, { argument in
            guard let argument else { return nil }
            let loop = Unmanaged<CurlMultiLoop>.fromOpaque(argument).takeRetainedValue()
            loop.run()
            CurlMultiLoop.threadEndHook.withLock { $0 }?()
            return nil
        }, box.toOpaque())
        guard created == 0 else {
            Self.registry.withLock { _ = $0.running.removeValue(forKey: ObjectIdentifier(self)) }
            box.release()
            endWithoutThread()
            throw TransportError(.other, message: "could not start the curl thread (error \(created))")
        }
        pthread_detach(handle)
    }

    /// Frees what `init` made when the thread does not start: the queue refuses commands from now on, and the multi
    /// handle, which no transfer has used, is freed here.
    private func endWithoutThread() {
        queue.withLock { $0.closed = true }
        curl_multi_cleanup(multi)
        markStopped()
    }

    /// Returns once the thread has ended every transfer, freed every easy handle, closed every
    /// connection (TLS ones included) and freed the multi handle. Any thread, any number of times.
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = stopped.withLock { state -> Bool in
                if !state.done { state.waiters.append(continuation) }
                return state.done
            }
            if done { continuation.resume() }
        }
    }

    /// Stops every running loop of the process and waits until each has freed everything.
    static func stopAll() async {
        let process = getpid()
        let loops = registry.withLock { $0.running.values.filter { $0.process == process } }
        for loop in loops {
            loop.submit(.shutdown)
            await loop.waitUntilStopped()
        }
    }

    /// Whether the thread has freed everything (``waitUntilStopped()`` would return at once). Any thread.
    var hasStopped: Bool { stopped.withLock { $0.done } }

    private func markStopped() {
        let waiters = stopped.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The error of a transfer that the shutdown ended, or that came too late.
    static var shutDownError: TransportError {
        TransportError(.shutDown, message: "the CurlTransport was shut down")
    }

    /// Hands a command to the loop; wakes it only when it sleeps. A command that comes after the
    /// loop stopped is not run; an `.add` then fails its transfer with ``shutDownError``.
    @discardableResult
    func submit(_ command: Command) -> Bool {
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.closed else { return false }
            queue.commands.append(command)
            // Inside the lock: once the loop has closed the queue, the multi handle may be freed.
            if asleep.load(ordering: .sequentiallyConsistent) {
                wakeups.add(1, ordering: .relaxed)
                curl_multi_wakeup(multi)
            }
            return true
        }
        if !accepted { refuse(command) }
        return accepted
    }

    /// What becomes of a command the stopped loop will never run.
    private func refuse(_ command: Command) {
        switch command {
        case .job(let job):
            // The loop is gone: the job still runs, on the global executor.
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        case .add(let transfer, let continuation):
            transfer.refusedAfterShutdown(continuation, error: Self.shutDownError)
        case .updatePause, .cancel, .shutdown:
            break
        }
    }

    /// Remembers a transfer whose pause curl refused (no connection yet). Loop thread only.
    /// O(1): a flag on the transfer, not a search of the list, so 10,000 paused transfers cost nothing more.
    func retryPauseLater(_ transfer: CurlTransfer) {
        guard !transfer.isPausePending else { return }
        transfer.isPausePending = true
        pausePending.append(transfer)
    }

    /// Marks a transfer as needing a flush after this pass. Loop thread only.
    func markDirty(_ transfer: CurlTransfer) {
        guard !transfer.isDirty else { return }
        transfer.isDirty = true
        dirty.append(transfer)
    }

    // MARK: The loop

    private func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        held.reserveCapacity(CompletionCoalescing.batch)
        var running: Int32 = 0
        var stopping = false
        while true {
            var pending = spareCommands
            spareCommands = []
            queue.withLock { swap(&$0.commands, &pending) }
            for command in pending {
                if case .shutdown = command { stopping = true } else { apply(command) }
            }
            pending.removeAll(keepingCapacity: true)
            spareCommands = pending
            if stopping {
                let closing = !abandoned.load(ordering: .relaxed)
                for transfer in active.values {
                    if closing { detach(transfer) }
                    transfer.fail(with: Self.shutDownError, loop: self)
                }
                for transfer in admission.removeAllWaiting() + admitted {
                    transfer.fail(with: Self.shutDownError, loop: self)
                }
                admitted.removeAll()
                unstamped.removeAll()
                active.removeAll()
                pausePending.removeAll()
                releaseHeld()
                flushDirty()
                break
            }
            expireWaiting()
            curl_multi_perform(multi, &running)
            stampOverdueDeadlines()
            retryPendingPauses()
            readFinished()
            if !unparkedHandles.isEmpty { freeUnparkedHandles() }
            failOverdue()
            startAdmitted()
            if holdFinished() { continue }
            flushDirty()

            idle()
        }
        // Close the queue; jobs that arrived meanwhile still run, elsewhere, and transfers fail.
        let late = queue.withLock { queue -> [Command] in
            queue.closed = true
            defer { queue.commands.removeAll() }
            return queue.commands
        }
        for command in late { refuse(command) }
        // The program's trust evaluators go now, while OpenSSL is surely alive: the loop itself may be freed after
        // its thread has told its waiters, maybe during `exit`.
        trustTags.removeAll()
        // Unless the exit handler gave up waiting (OpenSSL's clean-up may then be running): leave everything then.
        if !abandoned.load(ordering: .relaxed) {
            for handle in idleHandles { handle.cleanup() }
            idleHandles.removeAll()
            // Closes the cached connections, so no TLS object outlives the loop (OpenSSL's exit handler
            // must find nothing of ours in use).
            curl_multi_cleanup(multi)
            // Every connection is closed now, and nghttp2 has let go of every handle it kept.
            unparkedHandles.append(contentsOf: parkedHandles.removeAll())
            freeUnparkedHandles()
        }
        // Last, as nothing after it may call into OpenSSL: the thread ends after its callers may have gone on to
        // `exit` (see OpenSSLLifecycle.releaseThreadState).
        OpenSSLLifecycle.releaseThreadState()
        Self.registry.withLock { _ = $0.running.removeValue(forKey: ObjectIdentifier(self)) }
        markStopped()
    }

    /// Waits for the next socket event, command or timer, from the end of a pass: first polling without sleeping
    /// for ``IdlePolling``'s window, then in `curl_multi_poll`. Commands that come while the thread polls find it
    /// awake (`asleep` false) and cost no wake-up.
    private func idle() {
        let wait = millisecondsToNextTimer()
        guard wait > 0 else { return }
        guard idlePolling.maximum > .zero else {
            sleep(milliseconds: wait)
            return
        }
        let idleSince = ContinuousClock.now
        let window = min(idlePolling.window, .milliseconds(wait))
        var woken = false
        if window > .zero {
            woken = pollWithoutSleeping(until: idleSince + window)
            let (seconds, attoseconds) = (ContinuousClock.now - idleSince).components
            pollingNanoseconds.add(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000), ordering: .relaxed)
        }
        if !woken { woken = sleep(milliseconds: wait) }
        let idle = ContinuousClock.now - idleSince
        // A stretch a timer of the loop's own ended says nothing about when events come, unless it was long.
        if woken || idle > idlePolling.maximum { idlePolling.record(idle: idle) }
    }

    /// How long the loop may wait before a timer of libcurl's or its own is due, in milliseconds (at most a second).
    private func millisecondsToNextTimer() -> Int {
        var timeout = 0
        curl_multi_timeout(multi, &timeout)
        var wait = timeout < 0 || active.isEmpty ? 1000 : min(timeout, 1000)
        if let due = admission.nextDeadline { wait = Self.milliseconds(wait, endingAfter: due) }
        if !active.isEmpty, let due = overdueWatch.nextCheck { wait = Self.milliseconds(wait, endingAfter: due) }
        return wait
    }

    /// Polls the sockets and the command queue until one has something or `end` passes; whether one had.
    private func pollWithoutSleeping(until end: ContinuousClock.Instant) -> Bool {
        repeat {
            var events: Int32 = 0
            curl_multi_poll(multi, nil, 0, 0, &events)
            if events > 0 || queue.withLock({ !$0.commands.isEmpty }) { return true }
        } while ContinuousClock.now < end
        return false
    }

    /// Sleeps in `curl_multi_poll` until a socket event, a command or `milliseconds` pass, unless a command is
    /// already queued; whether a socket event or a command ended it.
    @discardableResult
    private func sleep(milliseconds wait: Int) -> Bool {
        asleep.store(true, ordering: .sequentiallyConsistent)
        defer { asleep.store(false, ordering: .sequentiallyConsistent) }
        // After `asleep` is set: a command queued before it would not have woken the thread.
        if queue.withLock({ !$0.commands.isEmpty }) { return true }
        var events: Int32 = 0
        curl_multi_poll(multi, nil, 0, Int32(wait), &events)
        return events > 0 || (idlePolling.maximum > .zero && queue.withLock { !$0.commands.isEmpty })
    }

    /// A wait of `milliseconds`, cut to end a millisecond after `due`, so the pass that wakes finds it passed.
    private static func milliseconds(_ milliseconds: Int, endingAfter due: ContinuousClock.Instant) -> Int {
        let left = ContinuousClock.now.duration(to: due)
        guard left > .zero else { return 0 }
        // Compared before the 1 is added: a deadline ages away saturates (`CurlOptions.longestMilliseconds`).
        let untilDue = CurlOptions.milliseconds(left)
        return untilDue >= milliseconds ? milliseconds : untilDue + 1
    }

    private func apply(_ command: Command) {
        switch command {
        case .job(let job):
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        case .add(let transfer, let continuation):
            transfer.headContinuation = continuation
            if transfer.endedBeforeStart(loop: self) { return }
            if let key = transfer.admissionKey, !admission.tryStart(host: key) {
                let deadline = transfer.context.timeouts.request.map { ContinuousClock.now + $0 }
                transfer.requestDeadline = deadline
                admission.enqueue(transfer, host: key, deadline: deadline)
                return
            }
            start(transfer)
        case .updatePause(let transfer):
            guard active[ObjectIdentifier(transfer)] != nil else { return }
            transfer.applyPauseState()
        case .cancel(let transfer, let error):
            transfer.mayBeHeld = false
            guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil else {
                // Waiting for a connection, or not here yet (its `.add` will find it ended).
                if let key = transfer.admissionKey { _ = admission.remove(transfer, host: key) }
                transfer.fail(with: error, loop: self)
                // Finished (and perhaps held): it ended before the cancellation came; its caller is resumed at this
                // pass's flush.
                if let index = held.firstIndex(where: { $0 === transfer }) {
                    held.remove(at: index)
                    dirty.append(transfer)
                }
                return
            }
            detach(transfer)
            transfer.fail(with: error, loop: self)
        case .shutdown:
            break
        }
    }

    /// Puts a transfer into the multi handle: attaches an easy handle and adds it. A transfer that cannot
    /// start fails, and gives its connection slot to the next one waiting.
    @discardableResult
    private func start(_ transfer: CurlTransfer) -> Bool {
        do {
            try transfer.attach(loop: self)
            let code = curl_multi_add_handle(multi, transfer.easyHandle)
            guard code == CURLM_OK else {
                throw TransportError(.other, message: "curl_multi_add_handle: \(String(cString: curl_multi_strerror(code)))")
            }
            active[ObjectIdentifier(transfer)] = transfer
            transfer.started(loop: self)
            if transfer.libcurlTimeoutMilliseconds > 0 { unstamped.append(transfer) }
            return true
        } catch {
            recycle(transfer.takeHandle())
            transfer.fail(with: error, loop: self)
            freeConnectionSlot(of: transfer)
            return false
        }
    }

    /// A transfer its host admitted has left the multi handle (or never entered it): the next one waiting
    /// for that host may go.
    private func freeConnectionSlot(of transfer: CurlTransfer) {
        guard let key = transfer.admissionKey, let next = admission.release(host: key) else { return }
        admitted.append(next)
    }

    /// Starts the waiting transfers that connections freed in this pass. One that ended while it waited (a
    /// `.cancel` raced its admission), or whose time ran out since the last look, gives its slot to the next
    /// rather than be sent.
    private func startAdmitted() {
        while !admitted.isEmpty {
            var ready = spareAdmitted
            spareAdmitted = []
            swap(&admitted, &ready)
            for transfer in ready {
                if transfer.endedBeforeStart(loop: self) {
                    freeConnectionSlot(of: transfer)
                } else if let deadline = transfer.requestDeadline, deadline <= ContinuousClock.now {
                    transfer.fail(with: noConnectionInTime(transfer), loop: self)
                    freeConnectionSlot(of: transfer)
                } else {
                    start(transfer)
                }
            }
            ready.removeAll(keepingCapacity: true)
            spareAdmitted = ready
        }
    }

    /// Gives the transfers added before this pass's `curl_multi_perform` their deadline for ``OverdueWatch``:
    /// libcurl starts a transfer's clock in the first `curl_multi_perform` after it was added, so a limit
    /// counted from after that perform is never earlier than libcurl's. (Counted from the add, a batch of
    /// commands, or the flush between a waiting transfer's start and the next pass, could put it earlier.)
    private func stampOverdueDeadlines() {
        guard !unstamped.isEmpty else { return }
        var stamped = spareUnstamped
        spareUnstamped = []
        swap(&unstamped, &stamped)
        let now = ContinuousClock.now
        for transfer in stamped {
            let deadline = now + .milliseconds(transfer.libcurlTimeoutMilliseconds)
            transfer.overdueDeadline = deadline
            overdueWatch.watch(deadline: deadline)
        }
        stamped.removeAll(keepingCapacity: true)
        spareUnstamped = stamped
    }

    /// Fails the transfers that libcurl still holds well after their request deadline (see ``OverdueWatch``).
    /// Runs after `readFinished`, so a transfer libcurl timed out in this pass ends with libcurl's own error.
    private func failOverdue() {
        guard overdueWatch.nextCheck != nil else { return }   // no clock read while nothing is watched
        let now = ContinuousClock.now
        guard overdueWatch.mayBeOverdue(at: now) else { return }
        for transfer in overdueWatch.overdue(in: active.values, deadline: { $0.overdueDeadline }, at: now) {
            let error = overdueError(transfer)
            active.removeValue(forKey: ObjectIdentifier(transfer))
            detach(transfer)
            transfer.fail(with: error, loop: self)
        }
    }

    /// The error of a transfer libcurl had not ended by its deadline. Built before the transfer leaves the
    /// multi handle: its connection information tells whether it ever had a connection.
    private func overdueError(_ transfer: CurlTransfer) -> TransportError {
        guard transfer.neverConnected else {
            return TransportError(.timedOut, message: """
                the request's timeout or deadline passed and libcurl had not ended the transfer (ended by \
                Courier's own check, \(OverdueWatch.grace) later)
                """)
        }
        func limit(_ value: Int) -> String { value == 0 ? "unlimited" : String(value) }
        let perHost = limit(configuration.maximumConnectionsPerHost)
        let total = limit(configuration.maximumTotalConnections)
        return TransportError(.timedOut, message: """
            no connection came free within the request's timeout or deadline: libcurl held the call while the \
            connections it may open were busy (CurlTransport.Configuration.maximumConnectionsPerHost \(perHost), \
            maximumTotalConnections \(total))
            """)
    }

    /// Fails every waiting transfer whose request timeout passed before its host had a free connection.
    private func expireWaiting() {
        guard let due = admission.nextDeadline else { return }
        let now = ContinuousClock.now
        guard due <= now else { return }
        for transfer in admission.expired(at: now) {
            transfer.fail(with: noConnectionInTime(transfer), loop: self)
        }
    }

    /// The error of a transfer whose time ran out while it waited for a connection.
    private func noConnectionInTime(_ transfer: CurlTransfer) -> TransportError {
        let host = transfer.admissionKey?.authority ?? "the host"
        let limit = configuration.maximumConnectionsPerHost
        return TransportError(.timedOut, message: """
            no connection to \(host) came free within the request's timeout or deadline (all \(limit) allowed \
            per host were busy; CurlTransport.Configuration.maximumConnectionsPerHost)
            """)
    }

    private func retryPendingPauses() {
        guard !pausePending.isEmpty else { return }
        let waiting = pausePending
        pausePending.removeAll(keepingCapacity: true)
        for transfer in waiting {
            transfer.isPausePending = false
            if active[ObjectIdentifier(transfer)] != nil { transfer.applyPauseState() }
        }
    }

    private func readFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard ccurl_msg_is_done(message) != 0, let easy = ccurl_msg_easy_handle(message) else { continue }
            let result = ccurl_msg_result(message)
            var privatePointer: UnsafeMutablePointer<CChar>? = nil
            ccurl_easy_getinfo_string(easy, CURLINFO_PRIVATE, &privatePointer)
            guard let privatePointer else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(UnsafeRawPointer(privatePointer)).takeUnretainedValue()
            guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { continue }
            if transfer.mayResend(after: result) {
                resend(transfer)
                continue
            }
            transfer.finished(result: result, loop: self)
            detach(transfer)
        }
    }

    /// Starts `transfer` again with a new easy handle, after its connection was lost before any answer
    /// (``CurlTransfer/mayResend(after:)``). It keeps its connection slot; its old handle goes where any failed
    /// transfer's goes (freed, or kept while nghttp2 may still hold its address).
    private func resend(_ transfer: CurlTransfer) {
        removeHandle(of: transfer)
        transfer.prepareToResend()
        if start(transfer) { resends.add(1, ordering: .relaxed) }
    }

    /// Takes an active transfer out of the multi handle, and gives its connection slot to the next transfer
    /// waiting for its host.
    private func detach(_ transfer: CurlTransfer) {
        removeHandle(of: transfer)
        freeConnectionSlot(of: transfer)
    }

    /// Takes `transfer`'s easy handle out of the multi handle and from the transfer, to the pool or wherever it must go.
    private func removeHandle(of transfer: CurlTransfer) {
        if let easy = transfer.easyHandle {
            curl_multi_remove_handle(multi, easy)
            // An idle handle must not point at a transfer that is about to be freed.
            if configuration.diagnostics != nil { _ = ccurl_easy_setopt_pointer(easy, CURLOPT_DEBUGDATA, nil) }
        }
        release(transfer.takeHandle(), of: transfer)
    }

    /// The tag of `evaluator`'s connections, and whether a connection verified under it may serve another
    /// request. Loop thread only.
    ///
    /// libcurl reuses a connection when the TLS options of the new request match the connection's,
    /// and the SSL-context callback is not among them; so a connection one evaluator accepted could serve a
    /// request whose evaluator would refuse that server. The tag goes into an option libcurl does compare
    /// (see `CurlOptions.configureTrust`): equal evaluators (by `Hashable`) share a tag and their
    /// connections; an evaluator that is not `Hashable` cannot be recognized again, so it gets a tag of
    /// its own and a connection that is never reused. Tags are never given twice, so forgetting the table
    /// when it grows large is safe: an evaluator seen again gets a new tag and new connections.
    func trustTag(for evaluator: any ServerTrustEvaluator) -> (tag: Int, reusable: Bool) {
        guard let hashable = evaluator as? any Hashable else { return (newTrustTag(), false) }
        let key = AnyHashable(hashable)
        if let tag = trustTags[key] { return (tag, true) }
        if trustTags.count >= Self.trustTagLimit { trustTags.removeAll(keepingCapacity: true) }
        let tag = newTrustTag()
        trustTags[key] = tag
        return (tag, true)
    }

    private func newTrustTag() -> Int {
        defer { nextTrustTag += 1 }
        return nextTrustTag
    }

    /// A recycled easy handle, or a new one with the transport's fixed options. Loop thread only.
    func takeEasyHandle() -> PooledEasy? {
        idleHandles.popLast() ?? PooledEasy.make(options: configuration, loop: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Pools `handle` for another transfer, unless the pool is full or the handle `retried` a request (libcurl
    /// keeps counting a handle's retries across transfers: ``CurlTransfer/handleMayHaveRetried``), then frees it.
    func recycle(_ handle: PooledEasy?, retried: Bool = false) {
        guard let handle else { return }
        if !retried, idleHandles.count < Self.idleHandleLimit {
            idleHandles.append(handle)
        } else {
            handle.cleanup()
        }
    }

    /// Whether the calling code runs on the curl thread (a caller with a preference for ``executor``). Any thread.
    var isCurrentThread: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// At the end of a pass: holds the finished transfers whose callers can wait while ``CompletionCoalescing``
    /// expects more to finish soon, flushes the others, and polls until an event or the deadline; whether it held
    /// (the loop then runs another pass instead of going idle). Otherwise releases what it held, to be flushed now.
    private func holdFinished() -> Bool {
        guard coalescing.window > .zero else { return false }
        var waiting = held.count
        for transfer in dirty where transfer.canWaitToResume { waiting += 1 }
        guard waiting > 0 else {
            coalescing.forgetDeadline()
            return false
        }
        let inFlight = transfersEndingSoon(atMost: CompletionCoalescing.minimumInFlight)
        switch coalescing.decide(waiting: waiting, inFlight: inFlight, now: .now) {
        case .resume:
            releaseHeld()
            return false
        case .hold(let deadline):
            dirty.removeAll { transfer in
                guard transfer.canWaitToResume else { return false }
                held.append(transfer)
                return true
            }
            flushDirty()
            // A long window (a setting, or a test) sleeps, but never past a timer; the last millisecond is polled.
            let left = ContinuousClock.now.duration(to: deadline)
            if left >= .milliseconds(2) {
                let wait = min(millisecondsToNextTimer(), CurlOptions.milliseconds(left) - 1)
                if wait > 0 { sleep(milliseconds: wait) }
            } else {
                _ = pollWithoutSleeping(until: deadline)
            }
            return true
        }
    }

    /// How many transfers on the wire may end soon (``CurlTransfer/mayEndSoon``), counted up to `limit`: streams
    /// (a download, server-sent events) may not end for a long time, so they do not count.
    private func transfersEndingSoon(atMost limit: Int) -> Int {
        var count = 0
        for transfer in active.values where transfer.mayEndSoon {
            count += 1
            if count == limit { break }
        }
        return count
    }

    /// How many transfers on the wire may end soon, all counted: what ``CompletionCoalescing`` weighs, for the tests'
    /// setup (``CurlTransport/transfersThatMayEndSoon()``). Loop thread only.
    func countTransfersThatMayEndSoon() -> Int {
        precondition(isCurrentThread, "the loop's transfers are read on the curl thread only")
        return transfersEndingSoon(atMost: .max)
    }

    /// Puts the held transfers back among the dirty ones (they are still marked dirty), for this pass's flush.
    private func releaseHeld() {
        guard !held.isEmpty else { return }
        dirty.append(contentsOf: held)
        held.removeAll(keepingCapacity: true)
    }

    private func flushDirty() {
        guard !dirty.isEmpty else { return }
        // A flush may mark its transfer dirty again: it goes into the emptied list, for the next pass.
        var touched = spareDirty
        spareDirty = []
        swap(&dirty, &touched)
        for transfer in touched {
            transfer.isDirty = false
            transfer.flush(loop: self)
        }
        touched.removeAll(keepingCapacity: true)
        spareDirty = touched
    }
}

/// `curl_global_init`, once per process, before any other curl call.
enum CurlGlobal {
    private static let done: Void = {
        curl_global_init(ccurl_global_all)
        // After the global init, which registered OpenSSL's exit handler: this one then runs first.
        ExitGuard.install()
        return ()
    }()
    static func initialize() { _ = done }
}
