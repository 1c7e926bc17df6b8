internal import CNetlink
import CourierCore
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One run of a monitor, from `start()` to `stop()`: the rtnetlink notification socket, the
/// query socket, an eventfd that wakes the thread, and the thread itself, which evaluates at
/// once, then again after every link, address or route notification.
final class MonitorLoop: @unchecked Sendable {
    // @unchecked: `kernel`, `addresses` and `first` are touched only on the loop's own thread
    // (created in `start`, which hands the loop over before the thread runs); the descriptors
    // are immutable; what other threads touch (stop requests, resolution results) is in `shared`,
    // a `Locked`.
    let target: ReachabilityTarget
    let generation: UInt64
    let evaluator: ReachabilityEvaluator
    let publish: @Sendable (ReachabilityStatus, _ generation: UInt64, _ first: Bool) -> Void
    let listenDescriptor: Int32
    let wakeDescriptor: Int32
    let shared = Locked(Shared())
    private var kernel: (any KernelView)?
    private var addresses: [IPAddress]?
    private var first = true

    struct Shared: Sendable {
        var stopRequested = false
        /// Set, under the lock, before the descriptors close: nobody writes to them afterwards.
        var closed = false
        var resolving = false
        var resolveAgain = false
        var resolved: [IPAddress]?
        var refreshRequested = false
    }

    /// Opens the sockets (and the kernel view, normally a ``RouteNetlinkQuery``); the thread is started by the caller with ``spawn()``.
    init(
        target: ReachabilityTarget,
        generation: UInt64,
        evaluator: ReachabilityEvaluator,
        makeKernel: @Sendable () throws(KernelQueryError) -> any KernelView,
        publish: @escaping @Sendable (ReachabilityStatus, UInt64, Bool) -> Void
    ) throws(ReachabilityError) {
        self.target = target
        self.generation = generation
        self.evaluator = evaluator
        self.publish = publish
        let listen = cnl_open_route_socket(cnl_reachability_groups(), 1)
        guard listen >= 0 else { throw ReachabilityError(.netlinkUnavailable, target: target, errno: errno) }
        var size: Int32 = 1 << 18
        setsockopt(listen, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let wake = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard wake >= 0 else {
            let saved = errno
            close(listen)
            throw ReachabilityError(.netlinkUnavailable, target: target, errno: saved)
        }
        do {
            kernel = try makeKernel()
        } catch {
            close(listen)
            close(wake)
            throw ReachabilityError(.netlinkUnavailable, target: target, errno: error.errno)
        }
        listenDescriptor = listen
        wakeDescriptor = wake
    }

    /// Starts the thread; it holds the loop until it ends. On failure the sockets are closed.
    func spawn() throws(ReachabilityError) -> pthread_t {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let loop = Unmanaged<MonitorLoop>.fromOpaque(context).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<MonitorLoop>.fromOpaque(context).release()
            closeDescriptors()
            throw ReachabilityError(.threadUnavailable, target: target, errno: result)
        }
        return thread
    }

    /// Closes the sockets of a loop whose thread was never started.
    func discard() {
        kernel = nil
        closeDescriptors()
    }

    /// Asks the thread to ask the kernel again now, as after a notification.
    func requestRefresh() {
        shared.withLock { state in
            state.refreshRequested = true
            if !state.closed { Self.signal(wakeDescriptor) }
        }
    }

    /// Asks the thread to end; it does after the evaluation or delivery under way.
    func requestStop() {
        shared.withLock { state in
            state.stopRequested = true
            if !state.closed { Self.signal(wakeDescriptor) }
        }
    }

    // MARK: the thread

    private func run() {
        cnl_set_thread_name("courier-reach")
        if case .host(let name) = target {
            resolve(name)
        } else {
            addresses = []
            evaluate()
        }
        var descriptors = [
            pollfd(fd: listenDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            descriptors[0].revents = 0
            descriptors[1].revents = 0
            if poll(&descriptors, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            var changed = false
            if descriptors[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, 8)
                let (stop, resolved, again, refresh) = shared.withLock { state in
                    let taken = (state.stopRequested, state.resolved, state.resolveAgain, state.refreshRequested)
                    state.resolved = nil
                    state.resolveAgain = false
                    state.refreshRequested = false
                    return taken
                }
                if stop { break }
                if refresh { changed = true }
                if let resolved {
                    addresses = resolved
                    changed = true
                }
                if again, case .host(let name) = target { resolve(name) }
            }
            if descriptors[0].revents != 0, drainNotifications() {
                changed = true
                // Names may resolve differently once the network changes (another DNS server,
                // a VPN's split horizon): resolve again, and evaluate the old addresses meanwhile.
                if case .host(let name) = target { resolve(name) }
            }
            if changed, addresses != nil { evaluate() }
        }
        kernel = nil
        closeDescriptors()
    }

    private func evaluate() {
        guard let kernel else { return }
        let resolved: ResolvedTarget = switch target {
        case .anyNetwork: .anyNetwork
        case .address(let address): .addresses([address])
        case .host: .addresses(addresses ?? [])
        }
        let status = evaluator.status(of: resolved, kernel: kernel)
        publish(status, generation, first)
        first = false
    }

    /// Reads every pending notification. True when one of them concerns links, addresses or
    /// routes, or when some were lost (ENOBUFS: the kernel's queue overflowed), so the state
    /// must be read again.
    private func drainNotifications() -> Bool {
        var relevant = false
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var sender: UInt32 = 0
            let count = buffer.withUnsafeMutableBytes { cnl_receive(listenDescriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT), &sender) }
            if count < 0 {
                if errno == EINTR { continue }
                if errno == ENOBUFS { relevant = true; continue }
                return relevant
            }
            guard sender == 0 else { continue }   // only the kernel notifies; another process's datagram is ignored
            guard let messages = try? NetlinkMessage.split(Array(buffer[0..<count])) else {
                relevant = true
                continue
            }
            for message in messages {
                guard let decoded = try? message.decoded() else {
                    relevant = true
                    continue
                }
                switch decoded {
                case .link, .address, .route: relevant = true
                default: break
                }
            }
        }
    }

    /// Resolves `name` on a global queue; the result comes back through `shared` and a wake-up.
    /// One resolution at a time: a request made meanwhile runs when the current one ends.
    private func resolve(_ name: String) {
        let start = shared.withLock { state -> Bool in
            if state.resolving { state.resolveAgain = true; return false }
            state.resolving = true
            return true
        }
        guard start else { return }
        // Only `shared` and the descriptor number travel: the loop (and its sockets) may be
        // gone before a slow resolution ends, and `closed` says so.
        let shared = self.shared
        let wake = wakeDescriptor
        DispatchQueue.global().async {
            let addresses = (try? HostResolver.resolve(name).get()) ?? []
            shared.withLock { state in
                state.resolving = false
                state.resolved = addresses
                if !state.closed { Self.signal(wake) }
            }
        }
    }

    private func closeDescriptors() {
        shared.withLock { $0.closed = true }
        close(listenDescriptor)
        close(wakeDescriptor)
    }

    private static func signal(_ descriptor: Int32) {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }
}
