import Foundation
import Synchronization

/// What the requests of a run came to, counted as they finish (from many tasks at once).
public final class SoakTally: Sendable {
    private struct State {
        var passed: [RequestKind: Int] = [:]
        var failed: [RequestKind: Int] = [:]
        var firstFailures: [String] = []
    }

    private let finished = Atomic<Int>(0)
    private let state = Mutex(State())
    /// How many failure messages are kept (all are counted).
    public static let keptFailures = 20

    public init() {}

    /// Requests finished so far, right or wrong.
    public var completed: Int { finished.load(ordering: .relaxed) }

    /// Counts one finished request; `failure` is what was wrong with it, nil when nothing was.
    public func record(_ kind: RequestKind, failure: String?) {
        state.withLock { state in
            if let failure {
                state.failed[kind, default: 0] += 1
                if state.firstFailures.count < Self.keptFailures { state.firstFailures.append(failure) }
            } else {
                state.passed[kind, default: 0] += 1
            }
        }
        finished.add(1, ordering: .relaxed)
    }

    public var passed: [RequestKind: Int] { state.withLock { $0.passed } }
    public var failed: [RequestKind: Int] { state.withLock { $0.failed } }
    public var failureCount: Int { state.withLock { $0.failed.values.reduce(0, +) } }
    public var firstFailures: [String] { state.withLock { $0.firstFailures } }
}

/// Runs a soak's requests.
public enum SoakDriver {
    /// Runs `options.requests` requests through `client`, `options.concurrency` at a time, counting
    /// them in `tally`, and returns false when the time limit stopped the run (the requests still in
    /// flight are then cancelled, and counted as failures). Prints a progress line to standard error
    /// every 10 seconds. Should the cancelled requests not end within 60 s of the limit, the process
    /// exits with status 1: the run must stop by itself.
    public static func run(_ client: SoakClient, options: SoakOptions, tally: SoakTally) async -> Bool {
        let total = options.requests, concurrency = options.concurrency, seed = options.seed
        let driver = Task {
            await withTaskGroup(of: Void.self) { group in
                var next = 0
                while next < total {
                    if next >= concurrency { _ = await group.next() }
                    if Task.isCancelled { break }
                    let plan = RequestPlan(index: next, seed: seed)
                    group.addTask { tally.record(plan.kind, failure: await client.run(plan)) }
                    next += 1
                }
                await group.waitForAll()
            }
        }
        let ended = Atomic<Bool>(false)
        let hitLimit = Atomic<Bool>(false)
        let watchdog = Task {
            let start = ContinuousClock.now
            var reported = 0
            while ContinuousClock.now - start < .seconds(options.timeLimit) {
                guard (try? await Task.sleep(for: .milliseconds(200))) != nil else { return }
                let seconds = (ContinuousClock.now - start).components.seconds
                if seconds / 10 > reported {
                    reported = Int(seconds / 10)
                    FileHandle.standardError.write(Data("courier-soak: \(seconds) s, \(tally.completed)/\(total) done, \(tally.failureCount) wrong\n".utf8))
                }
            }
            hitLimit.store(true, ordering: .relaxed)
            FileHandle.standardError.write(Data("courier-soak: the time limit (\(Int(options.timeLimit)) s) has passed; cancelling what is in flight\n".utf8))
            driver.cancel()
            try? await Task.sleep(for: .seconds(60))
            if !ended.load(ordering: .relaxed) {
                FileHandle.standardError.write(Data("courier-soak: requests still running 60 s after they were cancelled; exiting\n".utf8))
                exit(1)
            }
        }
        await driver.value
        ended.store(true, ordering: .relaxed)
        watchdog.cancel()
        return !hitLimit.load(ordering: .relaxed)
    }
}
