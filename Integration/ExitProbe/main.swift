import CourierCore
@_spi(Testing) import CourierCurl
import Foundation
import Synchronization

// courier-exit-probe: how a program's curl threads meet its exit, each way a program can exit, with the order a
// busy machine can bring about made certain. Built with AddressSanitizer, LeakSanitizer (which checks last, after
// every exit handler) then reports whatever of OpenSSL's a thread left behind. Scripts/exit-probe.sh runs it;
// docs/reliability.md "Program exit".
//
// Usage: courier-exit-probe [MODE] URL...   (one transport and one GET per URL; COURIER_CA_FILE, the CA file)
//   (no mode)               shutdownAll(), then exit
//   --late                  shutdownAll(), then exit with every curl thread held at its last step
//                           (CurlTransport.setThreadEndHook) until an exit handler that runs after OpenSSL's: the
//                           threads end after OpenSSL's clean-up, as a descheduled thread would
//   --no-shutdown           exit with the transports running: Courier's exit handler must stop them
//   --exit-on-curl-thread   exit from code on the first transport's executor: Courier's exit handler must stop the
//                           others and leave that one (it is the exiting thread)
// In the last three, an exit handler of the probe's, registered before libcurl's global init (so it runs after
// Courier's and OpenSSL's), checks that OpenSSL's clean-up has run and waits until the curl threads that should end
// have left the kernel's list.
// Exit status: 0 when every GET answered 200 and the threads ended as the mode says; 1 otherwise; 4 when the order
// the probe sets up did not happen (so the run proves nothing); LeakSanitizer's own status on a leak.

/// Writes `message` to standard error as one line (also from the exit handler, where stdio may be closing).
func say(_ message: String) {
    let line = "courier-exit-probe: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

enum Mode: String {
    case plain = ""
    case late = "--late"
    case noShutdown = "--no-shutdown"
    case exitOnCurlThread = "--exit-on-curl-thread"
}

/// The curl threads that reached their last step, and whether they may go on. Any thread.
final class EndingThreads: Sendable {
    private struct State {
        var threads: [pid_t] = []
        var released = false
    }
    private let state = Mutex(State())

    init(holding: Bool) {
        state.withLock { $0.released = !holding }
    }

    /// On a curl thread, at its end: counts it, then waits until ``waitForEnd(count:)`` lets it go (when holding).
    func arrive() {
        // "/proc/thread-self" links to "PID/task/TID"; glibc's gettid() is not in Swift's Glibc module.
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        guard let thread = link.split(separator: "/").last.flatMap({ pid_t($0) }) else {
            say("cannot tell the curl thread's id from /proc/thread-self (\(link))")
            _exit(1)
        }
        state.withLock { $0.threads.append(thread) }
        while !state.withLock({ $0.released }) { usleep(1000) }
    }

    /// Waits for `count` threads to arrive (a thread may still be on its way when `exit` starts), lets them go and
    /// returns once the kernel lists none of them (their thread-specific-data destructors have run). Exits with
    /// status 1 should that take 30 s.
    func waitForEnd(count: Int) {
        let start = ContinuousClock.now
        func giveUp(_ message: String) -> Never {
            say(message)
            _exit(1)
        }
        while state.withLock({ $0.threads.count }) < count {
            guard ContinuousClock.now - start < .seconds(30) else {
                giveUp("\(state.withLock { $0.threads.count }) curl threads reached their end in 30 s, expected \(count)")
            }
            usleep(1000)
        }
        let threads = state.withLock { state -> [pid_t] in
            state.released = true
            return state.threads
        }
        guard threads.count == count else { giveUp("\(threads.count) curl threads reached their end, expected \(count)") }
        for thread in threads {
            while FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)") {
                guard ContinuousClock.now - start < .seconds(30) else {
                    giveUp("curl thread \(thread) still running 30 s after it was let go")
                }
                usleep(1000)
            }
        }
    }
}

enum Probe {
    static let mode = CommandLine.arguments.dropFirst().compactMap { Mode(rawValue: $0) }.last ?? .plain
    static let threads = EndingThreads(holding: mode == .late)
    /// How many curl threads the run started.
    static let transports = Atomic<Int>(0)
    /// The transports the modes without a shutdown keep running until `exit`.
    static let kept = Mutex<[CurlTransport]>([])

    /// Runs at exit, after Courier's and OpenSSL's handlers (both registered later, at libcurl's global init).
    static let exitHandler: @convention(c) () -> Void = {
        guard openSSLHasCleanedUp() else {
            say("OpenSSL's exit handler had not run before the probe's; the order is not the one to test")
            _exit(4)
        }
        let started = Probe.transports.load(ordering: .relaxed)
        // What Courier's exit handler must have done: nothing after a shutdown; otherwise stop every transport in
        // time, but the one whose thread called `exit`, which stays in it.
        var expected = CurlTransport.ExitHandlerReport()
        switch mode {
        case .plain, .late: break
        case .noShutdown: expected.stopped = started
        case .exitOnCurlThread: (expected.stopped, expected.leftOnExitingThread) = (started - 1, 1)
        }
        guard let report = CurlTransport.exitHandlerReport, report == expected else {
            say("Courier's exit handler reported \(String(describing: CurlTransport.exitHandlerReport)), expected \(expected)")
            _exit(1)
        }
        Probe.threads.waitForEnd(count: expected.leftOnExitingThread == 1 ? started - 1 : started)
        // A caller the handler's shutdown resumed could try to go on with a new transport: none may start now.
        do {
            _ = try CurlTransport()
            say("a CurlTransport started after Courier's exit handler had run")
            _exit(1)
        } catch let error as TransportError where error.code == .shutDown {
        } catch {
            say("a CurlTransport made after Courier's exit handler failed with \(error), expected .shutDown")
            _exit(1)
        }
    }

    /// Whether `OPENSSL_cleanup` has run: after it, `OPENSSL_init_crypto` refuses (and, asked for the base only,
    /// records no error, which would allocate).
    static func openSSLHasCleanedUp() -> Bool {
        typealias InitCrypto = @convention(c) (UInt64, UnsafeRawPointer?) -> Int32
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "OPENSSL_init_crypto") else { return false }
        let baseOnly: UInt64 = 0x0004_0000   // OPENSSL_INIT_BASE_ONLY
        return unsafeBitCast(address, to: InitCrypto.self)(baseOnly, nil) == 0
    }
}

/// A transport that has answered one GET of `url`, or nil (and a message) when it could not.
func transportAfterGet(_ url: String, caFile: String?) async -> CurlTransport? {
    var configuration = CurlTransport.Configuration()
    configuration.certificateAuthorityFile = caFile
    do {
        let transport = try CurlTransport(configuration: configuration)
        Probe.transports.add(1, ordering: .relaxed)
        let session = Session(configuration: SessionConfiguration(timeouts: Timeouts(request: .seconds(30))), transport: transport)
        let response = try await session.data(for: try session.makeRequest(.get, url))
        guard response.status.code == 200 else {
            say("\(url) answered \(response.status.code)")
            return nil
        }
        return transport
    } catch {
        say("\(url): \(error)")
        return nil
    }
}

/// The run, in a function so that what it made is released before `exit` (LeakSanitizer would report values still
/// alive in top-level code's frame).
func probe() async -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    let urls = arguments.filter { !$0.hasPrefix("--") }
    let unknown = arguments.filter { $0.hasPrefix("--") && Mode(rawValue: $0) == nil }
    guard !urls.isEmpty, unknown.isEmpty else {
        say("usage: courier-exit-probe [--late | --no-shutdown | --exit-on-curl-thread] URL...")
        return 2
    }
    if Probe.mode != .plain {
        // Before any transport: libcurl's global init registers OpenSSL's handler and Courier's, which then run first.
        atexit(Probe.exitHandler)
        CurlTransport.setThreadEndHook { Probe.threads.arrive() }
    }
    let caFile = ProcessInfo.processInfo.environment["COURIER_CA_FILE"]
    var transports: [CurlTransport] = []
    for url in urls {
        if let transport = await transportAfterGet(url, caFile: caFile) { transports.append(transport) }
    }
    let allAnswered = transports.count == urls.count
    switch Probe.mode {
    case .plain, .late:
        transports = []
        await CurlTransport.shutdownAll()
    case .noShutdown:
        Probe.kept.withLock { $0 = transports }
    case .exitOnCurlThread:
        guard allAnswered, let first = transports.first else { return 1 }
        Probe.kept.withLock { $0 = transports }
        await withTaskExecutorPreference(first.executor) {
            guard first.runsOnCurrentThread else {
                say("the code with a preference for the transport's executor does not run on its curl thread")
                _exit(4)
            }
            fflush(nil)
            exit(0)
        }
    }
    return allAnswered ? 0 : 1
}

let status = await probe()
fflush(nil)
exit(status)
