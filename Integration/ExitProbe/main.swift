import CourierCore
@_spi(Testing) import CourierCurl
import Foundation
import Synchronization

// courier-exit-probe: the exit race a curl thread can lose on a busy machine, made certain. With `--late`, every
// curl thread is held at its last step (CurlTransport.setThreadEndHook) and let go only by an exit handler that
// runs after OpenSSL's own: the threads end after OpenSSL's clean-up, as a descheduled thread would. Built with
// AddressSanitizer, LeakSanitizer (which checks last, after every exit handler) then reports whatever of
// OpenSSL's a thread left to its end. Scripts/exit-probe.sh runs it; docs/reliability.md "Program exit".
//
// Usage: courier-exit-probe [--late] URL...   (one transport and one GET per URL; COURIER_CA_FILE, the CA file)
// Exit status: 0 when every GET answered 200 and the threads ended as asked; 1 otherwise; 4 when the order the
// probe sets up did not happen (so the run proves nothing); LeakSanitizer's own status on a leak.

/// Writes `message` to standard error as one line (also from the exit handler, where stdio may be closing).
func say(_ message: String) {
    let line = "courier-exit-probe: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// The curl threads held at their end, and whether the exit handler has let them go. Any thread.
final class HeldThreads: Sendable {
    private struct State {
        var threads: [pid_t] = []
        var released = false
    }
    private let state = Mutex(State())

    /// On a curl thread: counts it, then waits until ``releaseAndWait()`` lets it end.
    func hold() {
        // "/proc/thread-self" links to "PID/task/TID"; glibc's gettid() is not in Swift's Glibc module.
        let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        guard let thread = link.split(separator: "/").last.flatMap({ pid_t($0) }) else {
            say("cannot tell the curl thread's id from /proc/thread-self (\(link))")
            _exit(1)
        }
        state.withLock { $0.threads.append(thread) }
        while !state.withLock({ $0.released }) { usleep(1000) }
    }

    /// Waits for `count` threads to reach their hold (a thread may still be on its way when `exit` starts), lets
    /// them go and returns once the kernel lists none of them (their thread-specific-data destructors have run).
    /// Exits with status 1 should that take 60 s.
    func releaseAndWait(count: Int) {
        let start = ContinuousClock.now
        func giveUp(_ message: String) -> Never {
            say(message)
            _exit(1)
        }
        while state.withLock({ $0.threads.count }) < count {
            guard ContinuousClock.now - start < .seconds(60) else {
                giveUp("\(state.withLock { $0.threads.count }) curl threads reached their end in 60 s, expected \(count)")
            }
            usleep(1000)
        }
        let threads = state.withLock { state -> [pid_t] in
            state.released = true
            return state.threads
        }
        for thread in threads {
            while FileManager.default.fileExists(atPath: "/proc/self/task/\(thread)") {
                guard ContinuousClock.now - start < .seconds(60) else {
                    giveUp("curl thread \(thread) still running 60 s after it was let go")
                }
                usleep(1000)
            }
        }
    }
}

enum Probe {
    static let held = HeldThreads()
    /// How many curl threads the run started, for the exit handler to check against.
    static let transports = Atomic<Int>(0)

    /// Runs at exit, after OpenSSL's handler (registered later, by libcurl's global init, so run earlier).
    static let exitHandler: @convention(c) () -> Void = {
        guard openSSLHasCleanedUp() else {
            say("OpenSSL's exit handler had not run before the probe's; the order is not the one to test")
            _exit(4)
        }
        Probe.held.releaseAndWait(count: Probe.transports.load(ordering: .relaxed))
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

func get(_ url: String, caFile: String?) async -> Bool {
    var configuration = CurlTransport.Configuration()
    configuration.certificateAuthorityFile = caFile
    do {
        let transport = try CurlTransport(configuration: configuration)
        Probe.transports.add(1, ordering: .relaxed)
        let session = Session(configuration: SessionConfiguration(timeouts: Timeouts(request: .seconds(30))), transport: transport)
        let response = try await session.data(for: try session.makeRequest(.get, url))
        guard response.status.code == 200 else {
            say("\(url) answered \(response.status.code)")
            return false
        }
        return true
    } catch {
        say("\(url): \(error)")
        return false
    }
}

/// The run, in a function so that what it made is released before `exit` (LeakSanitizer would report values still
/// alive in top-level code's frame).
func probe() async -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    let late = arguments.contains("--late")
    let urls = arguments.filter { !$0.hasPrefix("--") }
    guard !urls.isEmpty else {
        say("usage: courier-exit-probe [--late] URL...")
        return 2
    }
    if late {
        // Before any transport: libcurl's global init registers OpenSSL's handler, which then runs first.
        atexit(Probe.exitHandler)
        CurlTransport.setThreadEndHook { Probe.held.hold() }
    }
    let caFile = ProcessInfo.processInfo.environment["COURIER_CA_FILE"]
    var allAnswered = true
    for url in urls where !(await get(url, caFile: caFile)) { allAnswered = false }
    await CurlTransport.shutdownAll()
    return allAnswered ? 0 : 1
}

let status = await probe()
fflush(nil)
exit(status)
