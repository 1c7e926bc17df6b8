import Foundation
import Synchronization

/// One reading of the process's resources.
public struct ResourceSample: Sendable, Equatable {
    /// Seconds since the run started.
    public var seconds: Double
    /// Requests finished by then.
    public var completed: Int
    /// Resident memory (`VmRSS`), KiB.
    public var residentKiB: Int
    /// The highest resident memory so far (`VmHWM`), KiB.
    public var peakResidentKiB: Int
    /// Open file descriptors (entries of `/proc/self/fd`).
    public var descriptors: Int
    /// Threads (entries of `/proc/self/task`).
    public var threads: Int

    public init(seconds: Double, completed: Int, residentKiB: Int, peakResidentKiB: Int, descriptors: Int, threads: Int) {
        self.seconds = seconds
        self.completed = completed
        self.residentKiB = residentKiB
        self.peakResidentKiB = peakResidentKiB
        self.descriptors = descriptors
        self.threads = threads
    }
}

/// Reads the process's resources every second on a thread of its own, so a busy Swift concurrency
/// pool cannot delay a sample (its thread is one of those counted, the same one all run long).
public final class ResourceSampler: Sendable {
    private let completed: @Sendable () -> Int
    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    private struct State {
        var samples: [ResourceSample] = []
        var stopped = false
    }

    /// A sampler that records `completed()` with each sample.
    public init(completed: @escaping @Sendable () -> Int) {
        self.completed = completed
    }

    /// Takes a sample now, then one a second until ``stop()``.
    public func start() {
        record()
        let thread = Thread { [self] in
            var next = 1.0
            while !state.withLock({ $0.stopped }) {
                // Short naps, so stop() returns promptly; samples stay on whole seconds.
                if elapsed() >= next {
                    record()
                    next += 1
                } else {
                    usleep(20_000)
                }
            }
        }
        thread.name = "courier-soak sampler"
        thread.start()
    }

    /// Stops sampling, takes a last sample and returns them all.
    public func stop() -> [ResourceSample] {
        state.withLock { $0.stopped = true }
        record()
        return state.withLock { $0.samples }
    }

    private func elapsed() -> Double {
        let duration = ContinuousClock.now - origin
        return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func record() {
        let memory = Self.memory()
        let sample = ResourceSample(
            seconds: elapsed(), completed: completed(), residentKiB: memory.resident, peakResidentKiB: memory.peak,
            descriptors: Self.entries(of: "/proc/self/fd"), threads: Self.entries(of: "/proc/self/task")
        )
        state.withLock { $0.samples.append(sample) }
    }

    /// `VmRSS` and `VmHWM` from `/proc/self/status`, in KiB.
    static func memory() -> (resident: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var resident = 0, peak = 0
        for line in status.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { resident = Int(line.filter(\.isNumber)) ?? 0 }
            if line.hasPrefix("VmHWM:") { peak = Int(line.filter(\.isNumber)) ?? 0 }
        }
        return (resident, peak)
    }

    /// The entries of a `/proc` directory, without `.`, `..` and, for `/proc/self/fd`, the descriptor
    /// reading it.
    static func entries(of path: String) -> Int {
        guard let directory = opendir(path) else { return -1 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { name in
                name[0] == UInt8(ascii: ".") && (name[1] == 0 || (name[1] == UInt8(ascii: ".") && name[2] == 0))
            }
            if !isDot { count += 1 }
        }
        return path.hasSuffix("/fd") ? count - 1 : count
    }
}
