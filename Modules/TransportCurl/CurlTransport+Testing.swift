import CourierCore
import Synchronization

/// What Courier's own process-level tests (Integration/ExitProbe) need to see and hold: SPI, not public API.
extension CurlTransport {
    /// Testing only: what Courier's exit handler did, once it has run (`nil` before). The exit probe reads it from an
    /// exit handler of its own that runs after Courier's.
    @_spi(Testing) public static var exitHandlerReport: ExitHandlerReport? {
        ExitGuard.report.withLock { $0 }
    }

    /// Testing only: what Courier's exit handler did with the process's transports.
    @_spi(Testing) public struct ExitHandlerReport: Sendable, Equatable {
        /// Transports it shut down, which stopped in time.
        public var stopped: Int
        /// Transports whose thread is the one that called `exit`, left running.
        public var leftOnExitingThread: Int
        /// Transports that did not stop in time, left to stop without closing their connections.
        public var abandoned: Int
        /// Whether OpenSSL's clean-up had already run, so that it shut nothing down.
        public var openSSLHadCleanedUp: Bool

        public init(stopped: Int = 0, leftOnExitingThread: Int = 0, abandoned: Int = 0, openSSLHadCleanedUp: Bool = false) {
            self.stopped = stopped
            self.leftOnExitingThread = leftOnExitingThread
            self.abandoned = abandoned
            self.openSSLHadCleanedUp = openSSLHadCleanedUp
        }
    }

    /// Testing only: the room the transport's next transfer reserves for a body that arrives whole
    /// (`WholeBodyReservation`), before the transport's `responseBufferSize` bounds it.
    @_spi(Testing) public var wholeBodyReservation: Int { loop.wholeBodyReservation.capacity(limit: .max) }

    /// Testing only: how many of the transport's transfers are on the wire and may end soon (awaiting their heads, or
    /// with what is left of a body of known length fitting one read), which is what completion coalescing weighs.
    /// Counted on the curl thread, as a job between two passes.
    @_spi(Testing) public func transfersThatMayEndSoon() async -> Int {
        let loop = self.loop
        return await withTaskExecutorPreference(executor) { loop.countTransfersThatMayEndSoon() }
    }

    /// Testing only: how many easy handles the transport keeps out of its pool while their connection may still hold
    /// their address (`CurlMultiLoop+QueuedRequests.swift`). Counted on the curl thread, as a job between two passes.
    @_spi(Testing) public func parkedHandleCount() async -> Int {
        let loop = self.loop
        return await withTaskExecutorPreference(executor) { loop.parkedHandles.count }
    }

    /// Testing only: how many times libcurl has given one of the transport's requests a connection (its prerequest
    /// callback). Counted on the curl thread, as a job between two passes.
    @_spi(Testing) public func connectionsGiven() async -> UInt64 {
        let loop = self.loop
        return await withTaskExecutorPreference(executor) { loop.connectionGrants }
    }

    /// Testing only: from now on, the transport takes each https call with a trust evaluator through its HTTPS proxy as
    /// going through the proxy whatever `proxyBypassHosts` says, while libcurl still bypasses the proxy for the hosts the
    /// list names. The handshake with such a host is then read as the proxy's, and the test sees what the transport does
    /// when that reading is wrong: it refuses the connection, and no later call is given it. It can only make calls
    /// fail (closed); never in a program, which would lose its bypassed hosts' calls.
    @_spi(Testing) public func takeEveryTrustedCallAsProxied() {
        loop.takesTrustedCallsAsProxied.store(true, ordering: .relaxed)
    }

    /// Testing only: whether the calling code runs on this transport's curl thread.
    @_spi(Testing) public var runsOnCurrentThread: Bool { loop.isCurrentThread }

    /// Testing only: `hook` runs on every curl thread as the thread's last step (once its loop has stopped and
    /// ``shutdown()`` has returned, just before the thread ends); `nil` removes it. Integration/ExitProbe holds
    /// the threads there until the program's exit handlers have run: the order in which a busy machine can end
    /// them, made certain.
    @_spi(Testing) public static func setThreadEndHook(_ hook: (@Sendable () -> Void)?) {
        CurlMultiLoop.threadEndHook.withLock { $0 = hook }
    }
}
