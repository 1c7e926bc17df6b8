import CourierReachability
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs `courier reachability`: starts a monitor, prints its first status (and, with `--watch`,
/// every change with a time stamp until SIGINT or SIGTERM), stops it.
struct ReachabilityRunner {
    let command: ReachabilityCommand

    /// How long a one-shot check waits for its first status (a slow DNS server may take this
    /// long to fail).
    static let firstStatusLimit: Duration = .seconds(30)

    func run() async -> Int32 {
        let monitor = ReachabilityMonitor(target: ReachabilityTarget(parsing: command.target ?? ""))
        let updates = monitor.updates(bufferingPolicy: .unbounded)
        let interrupted = command.watch ? Self.interruptions() : nil
        do {
            try monitor.start()
        } catch {
            CourierMain.report(error)
            return ExitStatus.failure
        }
        defer { monitor.stop() }
        if let interrupted {
            await Self.watch(updates, until: interrupted.stream)
            interrupted.cancel()
            return ExitStatus.success
        }
        guard let status = await Self.first(of: updates, within: Self.firstStatusLimit) else {
            CourierMain.report(CLIError("no answer about \(monitor.target) within \(Self.firstStatusLimit)"))
            return ExitStatus.failure
        }
        Console.out(status.description + "\n")
        return status.isReachable ? ExitStatus.success : ExitStatus.failure
    }

    /// Prints each status with a time stamp until `stop` yields.
    static func watch(_ updates: AsyncStream<ReachabilityStatus>, until stop: AsyncStream<Void>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await status in updates {
                    Console.out(WatchLine.format(status, at: WatchLine.now()) + "\n")
                    // Nobody reads what a failed stdout would be sent; the command ends with that failure.
                    if (try? Console.checkOutput()) == nil { return }
                }
            }
            group.addTask {
                for await _ in stop { return }
            }
            await group.next()
            group.cancelAll()
        }
    }

    /// The first status, or `nil` when none arrives within `limit`.
    static func first(of updates: AsyncStream<ReachabilityStatus>, within limit: Duration) async -> ReachabilityStatus? {
        await withTaskGroup(of: ReachabilityStatus?.self) { group in
            group.addTask {
                for await status in updates { return status }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// SIGINT and SIGTERM as a stream: their default action is turned off while watching, so
    /// the monitor is stopped and the process exits 0.
    static func interruptions() -> Interruptions {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            sources.append(source)
        }
        return Interruptions(stream: stream, continuation: continuation, sources: sources)
    }

    /// The signal sources of a `--watch` run and the stream they feed; kept by the runner's task.
    struct Interruptions {
        let stream: AsyncStream<Void>
        let continuation: AsyncStream<Void>.Continuation
        let sources: [any DispatchSourceSignal]

        func cancel() {
            for source in sources { source.cancel() }
            continuation.finish()
        }
    }
}

/// One `--watch` line: `2026-05-10T14:03:07.123+0000 reachable via wired (eth0)`.
enum WatchLine {
    /// Seconds and nanoseconds since the epoch.
    static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time
    }

    static func format(_ status: ReachabilityStatus, at time: timespec) -> String {
        timestamp(time) + " " + status.description
    }

    /// ISO 8601 local time with milliseconds and the UTC offset.
    static func timestamp(_ time: timespec) -> String {
        var seconds = time.tv_sec
        var parts = tm()
        localtime_r(&seconds, &parts)
        var date = [CChar](repeating: 0, count: 32)
        var zone = [CChar](repeating: 0, count: 8)
        strftime(&date, date.count, "%Y-%m-%dT%H:%M:%S", &parts)
        strftime(&zone, zone.count, "%z", &parts)
        let milliseconds = Int(time.tv_nsec / 1_000_000)
        let fraction = (milliseconds < 100 ? (milliseconds < 10 ? "00" : "0") : "") + String(milliseconds)
        return string(date) + "." + fraction + string(zone)
    }

    private static func string(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
