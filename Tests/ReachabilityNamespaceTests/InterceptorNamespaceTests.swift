import Foundation
import Testing
import CourierTesting

/// ReachabilityInterceptor and OfflineRetrier against httpbin (`python -m httpbin.core`, one
/// process, from the repository's .venv made by Scripts/bootstrap.sh) running in a server namespace, reached from a client
/// namespace over a veth pair whose client end goes down and comes back. The client side is
/// the ReachabilityProbe helper, run inside the client namespace.
@Suite(.serialized, .enabled(if: NetworkLab.availability.allowed, Comment(rawValue: NetworkLab.availability.reason)))
struct InterceptorNamespaceTests {
    static let url = "http://10.231.9.2:18090/get"

    /// Client and server namespaces joined by c0 (10.231.9.1) ↔ s0 (10.231.9.2), httpbin
    /// listening on the server side. Returns the client namespace and the server process.
    func setUp(_ lab: NetworkLab) async throws -> (client: String, server: LineProcess) {
        let client = try lab.namespace("client"), server = try lab.namespace("server")
        try lab.ip("-n", client, "link", "add", "c0", "type", "veth", "peer", "name", "s0", "netns", server)
        try lab.ip("-n", client, "addr", "add", "10.231.9.1/24", "dev", "c0")
        try lab.ip("-n", server, "addr", "add", "10.231.9.2/24", "dev", "s0")
        try lab.ip("-n", server, "link", "set", "s0", "up")
        try lab.ip("-n", client, "link", "set", "c0", "up")
        let python = Binaries.repositoryRoot + "/.venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw LabError("\(python) is missing: run Scripts/bootstrap.sh first (it installs httpbin)")
        }
        let httpbin = try LineProcess(namespace: server, python, ["-m", "httpbin.core", "--host", "10.231.9.2", "--port", "18090"], quiet: true)
        // Ready when a TCP connection from the client namespace succeeds.
        let probe = "import socket,time\nfor _ in range(200):\n try: socket.create_connection(('10.231.9.2',18090),0.2).close(); break\n except OSError: time.sleep(0.05)\nelse: raise SystemExit(1)\n"
        let ready = Command.run("/usr/sbin/ip", ["netns", "exec", client, "/usr/bin/python3", "-c", probe])
        guard ready.status == 0 else { throw LabError("httpbin did not start in \(server): \(ready.errorOutput)") }
        return (client, httpbin)
    }

    func probe(_ client: String, mode: String, wait: Double) throws -> LineProcess {
        try LineProcess(namespace: client, Binaries.probe, [Self.url, "--mode", mode, "--wait", String(wait)])
    }

    /// Fields of the probe's `result …` line, e.g. ["ok", "200", "attempts=1", "elapsed_ms=12"].
    func result(_ probe: LineProcess) async throws -> (line: String, attempts: Int, elapsed: Int) {
        let line = try await probe.line(within: .seconds(20)) { $0.hasPrefix("result ") }.text
        func value(_ key: String) -> Int {
            line.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Int($0.dropFirst(key.count + 1)) } ?? -1
        }
        return (line, value("attempts"), value("elapsed_ms"))
    }

    @Test func interceptorAndRetrierWaitForTheLinkToComeBack() async throws {
        let lab = NetworkLab()
        defer { lab.cleanUp() }
        let (client, server) = try await setUp(lab)
        defer { server.terminate() }

        // Reachable: the interceptor sends at once.
        let direct = try probe(client, mode: "interceptor", wait: 5)
        _ = try await direct.line { $0 == "monitor reachable via wired (c0)" }
        let first = try await result(direct)
        #expect(first.line.hasPrefix("result ok 200 attempts=1"), "\(first.line)")

        // Interceptor: the link is down when the request starts and comes back 300 ms later.
        try lab.ip("-n", client, "link", "set", "c0", "down")
        let held = try probe(client, mode: "interceptor", wait: 10)
        _ = try await held.line { $0 == "monitor not reachable" }
        _ = try await held.line { $0 == "sending" }
        try await Task.sleep(for: .milliseconds(300))
        try lab.ip("-n", client, "link", "set", "c0", "up")
        let afterWait = try await result(held)
        #expect(afterWait.line.hasPrefix("result ok 200 attempts=1"), "\(afterWait.line)")
        #expect(afterWait.elapsed >= 300, "\(afterWait.line)")
        print("interceptor: sent \(afterWait.elapsed) ms after the call, once the link was back")

        // Interceptor: the link stays down; the call fails after its 0.5 s wait, typed.
        try lab.ip("-n", client, "link", "set", "c0", "down")
        let refused = try probe(client, mode: "interceptor", wait: 0.5)
        let gaveUp = try await result(refused)
        #expect(gaveUp.line.hasPrefix("result error ReachabilityError: the network stayed unreachable"), "\(gaveUp.line)")
        #expect(gaveUp.elapsed >= 500 && .milliseconds(gaveUp.elapsed) < TimeBounds.limit(.milliseconds(500)), "\(gaveUp.line)")

        // Offline retrier: the first try fails at once (no route), the retry goes out when the
        // link is back.
        let retried = try probe(client, mode: "retrier", wait: 10)
        _ = try await retried.line { $0 == "sending" }
        try await Task.sleep(for: .milliseconds(300))
        try lab.ip("-n", client, "link", "set", "c0", "up")
        let afterRetry = try await result(retried)
        #expect(afterRetry.line.hasPrefix("result ok 200 attempts=2"), "\(afterRetry.line)")
        #expect(afterRetry.elapsed >= 300, "\(afterRetry.line)")
        print("offline retrier: succeeded on try 2 after \(afterRetry.elapsed) ms")

        // Offline retrier: the link stays down; after its 0.5 s wait the first error stands.
        try lab.ip("-n", client, "link", "set", "c0", "down")
        let abandoned = try probe(client, mode: "retrier", wait: 0.5)
        let lost = try await result(abandoned)
        #expect(lost.line.hasPrefix("result error TransportError: could not connect"), "\(lost.line)")
        #expect(lost.line.contains("attempts=1"), "\(lost.line)")
        #expect(lost.elapsed >= 500 && .milliseconds(lost.elapsed) < TimeBounds.limit(.milliseconds(500)), "\(lost.line)")

        for process in [direct, held, refused, retried, abandoned] { #expect(process.waitForExit() == 0) }
    }
}
