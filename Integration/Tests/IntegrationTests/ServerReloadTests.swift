import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a server's graceful reload does to calls in flight, against an nginx of this suite's own, which it reloads
/// (SIGHUP: new workers start, the old ones finish the requests they have and close their kept-alive connections,
/// over HTTP/2 with a GOAWAY). A call libcurl sends on a connection at the moment its worker closes it fails: over
/// HTTP/2 a GOAWAY's refusal (libcurl's bare error 16), over HTTP/1.1 a send the peer reset (55, "Send failure:
/// Broken pipe"), about 1 call in 10,000 with a reload every 50 ms; curl 7.88 fails the same calls the same ways.
/// Both are lost connections, which `RetryPolicy` sends again; so does the transport itself, once, on another
/// connection, since no byte of an answer came and either the GOAWAY refused the stream or the send met the close of a
/// kept HTTP/1 connection (`CurlTransport.Configuration.resendsOnConnectionLoss`): with it, every call arrives with or
/// without a retry policy; with it off, a call without one may fail, but only as a lost connection. The test prints how
/// many calls the transport sent again, and how many were lost with it off (ten runs: 15, and 16 of 120,000).
/// The nginx is the test's own (not `Scripts/servers.sh`'s)
/// because the reloads would cut other suites' calls, and the suite runs alone (`Scripts/test.sh` sets
/// `COURIER_RELOAD_TESTS`): a storm of reloads forks two workers every 20 ms, and beside the other suites and a CPU
/// hog it starved their readers past nginx's 60 s send timeout.
@Suite(
    "Server reloads", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["COURIER_RELOAD_TESTS"] == "1", "runs alone: COURIER_RELOAD_TESTS=1")
)
struct ServerReloadTests {
    static let calls = 6000

    @Test(arguments: [CurlTransport.Configuration.HTTPVersion.automatic, .http1_1])
    func callsSurviveGracefulReloads(version: CurlTransport.Configuration.HTTPVersion) async throws {
        let server = try await ReloadableNginx.start()
        var resends = 0
        var lostWithoutResend = 0
        for resending in [true, false] {
            let t = try transport {
                $0.certificateAuthorityFile = Servers.caFile
                $0.httpVersion = version
                $0.resendsOnConnectionLoss = resending
            }
            let lost = await Self.exercise(server, t, version, resending: resending)
            if resending { resends = t.connectionLossResends } else { lostWithoutResend = lost; #expect(t.connectionLossResends == 0) }
            await t.shutdown()
        }
        _ = try? await offPool { server.stop() }
        // What the transport's resend spared the calls without a retry policy: how many it sent again, and how many
        // calls failed in the same storm with it off. Not asserted: a run may meet no close at all.
        print("ServerReloadTests \(version): resend on: \(resends) calls sent again; resend off, no retry policy: \(lostWithoutResend) of \(Self.calls) calls lost")
    }

    /// The calls, beside a storm of reloads: under `RetryPolicy` and without one. With the transport's resend on a new
    /// connection every call arrives either way; without it (`resending` false) a call without a retry policy may
    /// fail, but only as a lost connection.
    /// Returns how many calls failed `.connectionLost` in its last round.
    static func exercise(_ server: ReloadableNginx, _ t: CurlTransport, _ version: CurlTransport.Configuration.HTTPVersion, resending: Bool) async -> Int {
        var lost = 0
        for retried in resending ? [true, false] : [false] {
            let s = session(server.url, transport: t) {
                if retried { $0.retrier = RetryPolicy(exponentialBackoffScale: 0) }
            }
            // A reload every 20 ms for as long as the calls last (a sanitizer's build is slower), at most 500.
            let finished = Box(false)
            let reloading = Task.detached {
                var reloads = 0
                while !finished.value, reloads < 500 {
                    try? await Task.sleep(for: .milliseconds(20))
                    server.reload()
                    reloads += 1
                }
                return reloads
            }
            let outcomes = await run(s, count: calls, width: 16)
            finished.value = true
            let reloads = await reloading.value
            let failures = outcomes.compactMap { outcome -> String? in
                if case .success(let body) = outcome, body == ReloadableNginx.body { return nil }
                if case .failure(let error) = outcome, isOpenSSLWriteRetryRefusal(error) { return nil }
                return "\(outcome)"
            }
            let label = "\(version), \(retried ? "under RetryPolicy" : "no retry policy"), resend \(resending ? "on" : "off"), \(reloads) reloads"
            if resending {
                #expect(failures.isEmpty, "\(label): \(failures.count) of \(calls) failed: \(failures.prefix(3))")
            } else {
                // A call may fail, but only as a lost connection.
                let otherwise = outcomes.filter {
                    guard case .failure(let error) = $0 else { return false }
                    return transportCode(error) != .connectionLost && !isOpenSSLWriteRetryRefusal(error)
                }
                #expect(otherwise.isEmpty, "\(label): \(otherwise.prefix(3))")
            }
            lost = outcomes.count { if case .failure(let error) = $0 { transportCode(error) == .connectionLost } else { false } }
        }
        return lost
    }

    /// `count` GETs of the small file, `width` at a time: each one's body, or its error.
    static func run(_ s: Session, count: Int, width: Int) async -> [Result<Data, any Error>] {
        await withTaskGroup(of: [Result<Data, any Error>].self) { group in
            for lane in 0..<width {
                group.addTask {
                    var results: [Result<Data, any Error>] = []
                    for _ in stride(from: lane, to: count, by: width) {
                        do {
                            let response = try await s.data(for: try s.makeRequest(.get, "small.json"))
                            results.append(response.status == .ok ? .success(response.data) : .failure(StatusError(code: response.status.code)))
                        } catch {
                            results.append(.failure(error))
                        }
                    }
                    return results
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
    }

    struct StatusError: Error { var code: Int }
}

/// An nginx of one test's own: TLS with HTTP/2 and HTTP/1.1 by ALPN on a free port of 127.0.0.1, the test CA's
/// certificate, one small file, two workers; run in the foreground as this process's child, reloaded with SIGHUP
/// and stopped with SIGQUIT.
final class ReloadableNginx: Sendable {
    static let body = Data(#"{"reloaded":"fine"}"#.utf8)
    let directory: URL
    let url: String
    private let process: Process
    private var master: pid_t { process.processIdentifier }

    private init(directory: URL, url: String, process: Process) {
        self.directory = directory
        self.url = url
        self.process = process
    }

    static func start() async throws -> ReloadableNginx {
        let directory = try temporaryDirectory()
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try body.write(to: root.appendingPathComponent("small.json"))
        let port = try freePort()
        let certificates = Servers.certsDirectory
        let configuration = """
        \(getuid() == 0 ? "user root;" : "")
        worker_processes 2;
        daemon off;
        pid \(directory.path)/nginx.pid;
        error_log \(directory.path)/error.log warn;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(directory.path)/tmp;
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(certificates)/chain.pem;
                ssl_certificate_key \(certificates)/leaf.key;
                root \(root.path);
            }
        }
        """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", directory.path + "/", "-c", file.path, "-e", directory.path + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let server = ReloadableNginx(directory: directory, url: "https://127.0.0.1:\(port)", process: process)
        // Ready once the port takes connections (nginx writes its pid file before it listens).
        guard await eventually(timeout: .seconds(10), { process.isRunning && accepts(port) }) else {
            let log = errorLog(directory)
            server.stop()
            throw StartFailure(reason: "not listening on \(port) after 10 s: " + log)
        }
        return server
    }

    /// A graceful reload, as `nginx -s reload` sends it.
    func reload() { kill(master, SIGHUP) }

    /// A graceful stop (up to 5 s, then SIGKILL); then the directory goes.
    func stop() {
        kill(master, SIGQUIT)
        for _ in 0..<100 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(master, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func errorLog(_ directory: URL) -> String {
        (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? "(no error log)"
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    /// Whether 127.0.0.1:`port` takes a connection.
    private static func accepts(_ port: UInt16) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = loopback(port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port of 127.0.0.1 nobody listens on now (the system's choice for a socket bound to port 0).
    private static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw StartFailure(reason: "socket: \(errno)") }
        defer { close(socket) }
        var address = loopback(0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw StartFailure(reason: "bind: \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    struct StartFailure: Error, CustomStringConvertible {
        var reason: String
        var description: String { "the test's nginx did not start: \(reason)" }
    }
}
