import CourierCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Shuts the running transports down when the program exits without having done so itself.
///
/// Why: `exit` runs OpenSSL's clean-up (an exit handler that libcurl's global init registered), which frees what a
/// curl thread still inside a TLS call may be using: a program that returned from `main` with a transport alive
/// could crash after its work was done (about 1 run in 300, before ``CurlTransport/shutdownAll()`` existed), and it
/// left its TLS connections unclosed. Exit handlers run in the reverse order of their registration, and this one is
/// registered just after libcurl's global init, so it runs before OpenSSL's: it shuts every running loop of the
/// process down, as `shutdownAll()` does, and waits until each has closed its connections and freed its handles,
/// for at most ``timeout`` in all; then the exit goes on. Loops may no longer start once it has begun: a caller its
/// shutdown resumed might otherwise start one during OpenSSL's clean-up.
///
/// What it leaves: a loop whose thread is the exiting one (code on ``CurlTransport/executor`` called `exit`), which
/// cannot be waited for; a loop that does not stop in time (say, its thread runs a job of the program's that waits
/// for the exiting thread), which then leaves its connections as they are rather than close them during OpenSSL's
/// clean-up; the loops of a parent process, in a forked child; and every loop, should OpenSSL's clean-up somehow have
/// run first (closing a connection would call into it).
enum ExitGuard {
    /// The longest an exit waits for the loops to stop.
    static let timeout: Duration = .seconds(2)

    /// What the handler did, once it has run (for the exit probe, ``CurlTransport/exitHandlerReport``).
    static let report = Locked<CurlTransport.ExitHandlerReport?>(nil)

    /// Registers the exit handler, once per process. Call it after `curl_global_init`.
    static func install() {
        _ = installed
    }

    private static let installed: Int32 = atexit {
        let report = CurlMultiLoop.stopAllBeforeExit(within: ExitGuard.timeout)
        ExitGuard.report.withLock { $0 = report }
    }
}

extension CurlMultiLoop {
    /// Shuts down every loop of this process but the calling thread's, and waits until each has stopped, for at most
    /// `limit` in all; no loop starts afterwards. Blocks the calling thread, which is exiting and has nothing else to
    /// do. See ``ExitGuard``.
    static func stopAllBeforeExit(within limit: Duration) -> CurlTransport.ExitHandlerReport {
        let process = getpid()
        let loops = registry.withLock { registry in
            registry.exiting = true
            return registry.running.values.filter { $0.process == process }
        }
        let others = loops.filter { !$0.isCurrentThread }
        var report = CurlTransport.ExitHandlerReport(leftOnExitingThread: loops.count - others.count)
        guard !others.isEmpty else { return report }
        guard !OpenSSLLifecycle.hasCleanedUp else {
            report.openSSLHadCleanedUp = true
            return report
        }
        for loop in others { _ = loop.submit(.shutdown) }
        let deadline = ContinuousClock.now + limit
        for loop in others {
            while !loop.hasStopped, ContinuousClock.now < deadline { usleep(200) }
            if loop.hasStopped {
                report.stopped += 1
            } else {
                loop.abandoned.store(true, ordering: .relaxed)
                report.abandoned += 1
            }
        }
        return report
    }
}
