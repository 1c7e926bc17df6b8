import Foundation

/// What one benchmark run does, parsed from the command line shared by every client:
/// `small URL CONCURRENCY REQUESTS [CAFILE]`, `download-memory URL [CAFILE]`,
/// `download-file URL OUTPUT [CAFILE]`, `upload URL FILE [CAFILE]`, and for Courier alone
/// `multipart-upload URL FILE [CAFILE]` (a `multipart/form-data` POST of the file and a text field).
public struct Workload: Sendable {
    public enum Kind: String, Sendable {
        case small, downloadMemory = "download-memory", downloadFile = "download-file", upload
        case multipartUpload = "multipart-upload"
    }
    public let kind: Kind
    public let url: String
    public let concurrency: Int
    public let requests: Int
    public let path: String?
    public let caFile: String?

    public static func parse(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Workload {
        guard arguments.count >= 2, let kind = Kind(rawValue: arguments[0]) else {
            FileHandle.standardError.write(Data("usage: small URL C N [CA] | download-memory URL [CA] | download-file URL OUT [CA] | upload URL FILE [CA] | multipart-upload URL FILE [CA]\n".utf8))
            exit(2)
        }
        let url = arguments[1]
        switch kind {
        case .small:
            guard arguments.count >= 4, let c = Int(arguments[2]), let n = Int(arguments[3]) else { exit(2) }
            return Workload(kind: kind, url: url, concurrency: c, requests: n, path: nil, caFile: arguments.count > 4 ? arguments[4] : nil)
        case .downloadMemory:
            return Workload(kind: kind, url: url, concurrency: 1, requests: 1, path: nil, caFile: arguments.count > 2 ? arguments[2] : nil)
        case .downloadFile, .upload, .multipartUpload:
            guard arguments.count >= 3 else { exit(2) }
            return Workload(kind: kind, url: url, concurrency: 1, requests: 1, path: arguments[2], caFile: arguments.count > 3 ? arguments[3] : nil)
        }
    }
}

/// Exits with status 2 for a workload this client does not implement.
public func unsupported(_ workload: Workload, client: String) -> Never {
    FileHandle.standardError.write(Data("\(client): workload \(workload.kind.rawValue) is not implemented\n".utf8))
    exit(2)
}

/// How the Swift clients keep `concurrency` calls in flight: a child task per call (the default, as a server makes
/// a task per incoming request), or `COURIER_BENCH_SHAPE=workers`: `concurrency` tasks, each making its share of
/// the calls one after the other, so no task is made per call (docs/performance.md shows what the difference is).
public let workersShape = ProcessInfo.processInfo.environment["COURIER_BENCH_SHAPE"] == "workers"

/// Runs `count` operations with at most `concurrency` in flight (see ``workersShape`` for how).
public func runConcurrently(count: Int, concurrency: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws {
    if workersShape {
        try await runWorkers(count: count, workers: min(concurrency, count), operation)
        return
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        var started = 0
        while started < min(concurrency, count) {
            group.addTask { try await operation() }
            started += 1
        }
        while try await group.next() != nil {
            if started < count {
                group.addTask { try await operation() }
                started += 1
            }
        }
    }
}

/// `workers` tasks, each running its share of `count` operations in sequence.
private func runWorkers(count: Int, workers: Int, _ operation: @escaping @Sendable () async throws -> Void) async throws {
    guard workers > 0 else { return }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<workers {
            let share = count / workers + (worker < count % workers ? 1 : 0)
            group.addTask {
                for _ in 0..<share { try await operation() }
            }
        }
        try await group.waitForAll()
    }
}

/// Prints the run's figures as one JSON line, the format Scripts/bench.sh reads. Call it while the client's threads
/// still run: the busiest thread is found among the live ones (``busiestThreadSeconds()``).
public func report(client: String, workload: Workload, seconds: Double, bytes: Int64, connections: Int?, failures: Int) {
    let busiest = busiestThreadSeconds()
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    // User and system time apart too: which side of the kernel a client's cost is on.
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    let cpu = user + system
    let connectionsText = connections.map(String.init) ?? "null"
    print(#"{"client":"\#(client)","workload":"\#(workload.kind.rawValue)","concurrency":\#(workload.concurrency),"requests":\#(workload.requests),"failures":\#(failures),"seconds":\#(String(format: "%.6f", seconds)),"cpu_seconds":\#(String(format: "%.6f", cpu)),"user_seconds":\#(String(format: "%.6f", user)),"system_seconds":\#(String(format: "%.6f", system)),"busiest_thread_seconds":\#(String(format: "%.6f", busiest)),"max_rss_kib":\#(usage.ru_maxrss),"threads":\#(threadCount()),"bytes":\#(bytes),"connections":\#(connectionsText)}"#)
}

/// The processor time of the process's busiest live thread, in seconds: where a client's work is serial (one
/// thread runs libcurl or an event loop), that thread caps its rate before the machine's cores do, and this
/// shows how close it came. Each thread's clock is read with the clock id Linux gives a thread of this process
/// (`pthread_getcpuclockid` makes the same from a thread's id: the id's complement shifted by 3, with
/// `CPUCLOCK_SCHED` and the per-thread flag), to the nanosecond, where /proc's tick counts have 10 ms steps.
/// Threads that already ended are not counted.
public func busiestThreadSeconds() -> Double {
    guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return 0 }
    var busiest = 0.0
    for name in tasks {
        guard let thread = Int32(name) else { continue }
        var time = timespec()
        let clock = clockid_t((~thread) << 3 | 6)
        guard clock_gettime(clock, &time) == 0 else { continue }
        busiest = max(busiest, Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }
    return busiest
}

/// The process's threads now (`Threads:` of /proc/self/status); -1 when it cannot be read.
public func threadCount() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix("Threads:") {
            return Int(text.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
    }
    return -1
}

/// Monotonic seconds.
public func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Bytes moved and failures counted by clients that report them from several tasks.
public final class ResponseTally: @unchecked Sendable {
    // @unchecked: `bytes` and `failures` are guarded by `lock`.
    private let lock = NSLock()
    private var storedBytes: Int64 = 0
    private var storedFailures = 0

    public init() {}

    /// Adds one response: its size and whether its status was a failure.
    public func add(_ count: Int, status: Int) {
        lock.withLock {
            storedBytes += Int64(count)
            if status >= 400 { storedFailures += 1 }
        }
    }

    public var bytes: Int64 { lock.withLock { storedBytes } }
    public var failures: Int { lock.withLock { storedFailures } }
}
