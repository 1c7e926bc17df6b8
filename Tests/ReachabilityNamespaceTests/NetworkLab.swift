import CourierCore
import Foundation
import Testing

/// Network namespaces for one test, named `courier-<pid>-<n>-<name>`, with the `ip` commands that
/// shape them. Everything it creates lives inside its namespaces (veth pairs are created in,
/// or moved into, them) and is deleted by ``cleanUp()``: the host's own interfaces, routes and
/// addresses are never touched.
final class NetworkLab: Sendable {
    private static let counter = Locked(0)
    let prefix: String
    private let created = Locked<[String]>([])

    init() {
        let n = Self.counter.withLock { value -> Int in
            value += 1
            return value
        }
        prefix = "courier-\(getpid())-\(n)"
    }

    /// Whether this machine lets us make namespaces, and why not. Checked once per process.
    static let availability: (allowed: Bool, reason: String) = {
        guard getuid() == 0 else { return (false, "network namespace tests need root (`ip netns add`); skipped") }
        let name = "courier-check-\(getpid())"
        let add = Command.run("/usr/sbin/ip", ["netns", "add", name])
        guard add.status == 0 else {
            return (false, "this machine forbids network namespaces (`ip netns add` failed: \(add.errorOutput.trimmingCharacters(in: .whitespacesAndNewlines))); skipped")
        }
        _ = Command.run("/usr/sbin/ip", ["netns", "del", name])
        return (true, "")
    }()

    /// Creates a namespace with its loopback up (unless `loopbackUp` is false) and returns its name.
    func namespace(_ name: String, loopbackUp: Bool = true) throws -> String {
        let full = "\(prefix)-\(name)"
        try ip("netns", "add", full)
        created.withLock { $0.append(full) }
        if loopbackUp { try ip("-n", full, "link", "set", "lo", "up") }
        return full
    }

    /// Files `ip netns exec` puts over /etc in `namespace` (hosts, resolv.conf).
    func etc(_ namespace: String, _ files: [String: String]) throws {
        let directory = "/etc/netns/\(namespace)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    /// Runs `ip arguments…`; throws with its stderr when it fails.
    func ip(_ arguments: String...) throws {
        let result = Command.run("/usr/sbin/ip", arguments)
        guard result.status == 0 else {
            throw LabError("ip \(arguments.joined(separator: " ")) failed: \(result.errorOutput)")
        }
    }

    /// Deletes every namespace (which deletes their veth pairs) and their /etc/netns files.
    func cleanUp() {
        for name in created.withLock({ $0 }) {
            _ = Command.run("/usr/sbin/ip", ["netns", "del", name])
            try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
        }
        created.withLock { $0 = [] }
        rmdir("/etc/netns")  // only when empty: other namespaces' files stay
    }

    deinit { cleanUp() }
}

struct LabError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs a command to completion.
enum Command {
    struct Result {
        var status: Int32
        var output: String
        var errorOutput: String
    }

    static func run(_ path: String, _ arguments: [String]) -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do { try process.run() } catch {
            return Result(status: -1, output: "", errorOutput: "\(error)")
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errorOutput: String(decoding: err, as: UTF8.self))
    }
}

/// Where the binaries under test are: beside this test bundle (`.build/<triple>/debug`).
enum Binaries {
    static let directory: String = {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: executable).deletingLastPathComponent().path
    }()
    static var courier: String { directory + "/courier" }
    static var probe: String { directory + "/ReachabilityProbe" }
    /// The repository root, for the test servers' Python venv.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
}

/// A long-running process (run inside a namespace with `ip netns exec`) whose stdout lines are
/// collected as they arrive, each with the time it was read.
final class LineProcess: Sendable {
    struct Line: Sendable {
        var text: String
        var time: ContinuousClock.Instant
    }

    private let process: Process
    private let lines = Locked<[Line]>([])
    private let partial = Locked<[UInt8]>([])
    let command: String

    init(namespace: String, _ executable: String, _ arguments: [String], quiet: Bool = false) throws {
        command = ([executable] + arguments).joined(separator: " ")
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = ["netns", "exec", namespace, executable] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = quiet ? FileHandle.nullDevice : FileHandle.standardError
        let lines = self.lines, partial = self.partial
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            let now = ContinuousClock.now
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            let complete = partial.withLock { buffer -> [String] in
                buffer.append(contentsOf: data)
                var found: [String] = []
                while let newline = buffer.firstIndex(of: 10) {
                    found.append(String(decoding: buffer[..<newline], as: UTF8.self))
                    buffer.removeSubrange(...newline)
                }
                return found
            }
            lines.withLock { $0.append(contentsOf: complete.map { Line(text: $0, time: now) }) }
        }
        try process.run()
    }

    /// Every line so far.
    var allLines: [Line] { lines.withLock { $0 } }

    /// The first line after the first `skip` ones that satisfies `match`, waiting up to `timeout`.
    func line(after skip: Int = 0, within timeout: Duration = .seconds(10), where match: (String) -> Bool) async throws -> Line {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = lines.withLock({ $0.dropFirst(skip).first { match($0.text) } }) { return found }
            guard ContinuousClock.now < deadline else {
                throw LabError("`\(command)` printed no matching line within \(timeout); it printed: \(allLines.map(\.text))")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// The next status line (`courier reachability --watch` prints `<time> <status>`) after the
    /// first `skip` lines, without its time stamp.
    func status(after skip: Int, within timeout: Duration = .seconds(10)) async throws -> Line {
        var line = try await self.line(after: skip, within: timeout) { _ in true }
        if let space = line.text.firstIndex(of: " ") { line.text = String(line.text[line.text.index(after: space)...]) }
        return line
    }

    var count: Int { lines.withLock { $0.count } }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Sends SIGTERM and waits up to 5 s, then SIGKILL; returns the exit status.
    @discardableResult
    func terminate() -> Int32 {
        if process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + .seconds(5)
        while process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { terminate() }
}
