import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Where the servers started by `Scripts/servers.sh` listen (its `env` command exports these).
enum Servers {
    static func url(_ variable: String) -> String {
        guard let value = ProcessInfo.processInfo.environment[variable], !value.isEmpty else {
            fatalError("\(variable) is not set: run the integration tests through Scripts/integration.sh, which starts the servers")
        }
        return value
    }

    static var httpbin: String { url("COURIER_HTTPBIN_URL") }
    static var nginx: String { url("COURIER_NGINX_URL") }
    static var h2c: String { url("COURIER_H2C_URL") }
    static var tls: String { url("COURIER_TLS_URL") }
    static var tlsLocalhost: String { url("COURIER_TLS_LOCALHOST_URL") }
    static var tlsHTTP1: String { url("COURIER_TLS_H1_URL") }
    static var caFile: String { url("COURIER_CA_FILE") }
    static var unixSocket: String { url("COURIER_UNIX_SOCKET") }
    static var fault: String { url("COURIER_FAULT_URL") }
    static var proxy: String { url("COURIER_PROXY_URL") }
    static var socks: String { url("COURIER_SOCKS_URL") }
    static var tlsProxy: String { url("COURIER_TLS_PROXY_URL") }
    static var sink: String { url("COURIER_SINK_URL") }
    static var filesDirectory: String { url("COURIER_FILES_DIR") }
    static var certsDirectory: String { url("COURIER_CERTS_DIR") }
    static var tlsOther: String { url("COURIER_TLS_OTHER_URL") }
    static var mutualTLS: String { url("COURIER_MTLS_URL") }
    static var tlsRecorder: String { url("COURIER_TLS_RECORDER_URL") }
    static var compression: String { url("COURIER_COMPRESSION_URL") }
    static var chaos: String { url("COURIER_CHAOS_URL") }
    static var tlsChaos: String { url("COURIER_TLS_CHAOS_URL") }
    static var sse: String { url("COURIER_SSE_URL") }
}

/// One transport for the tests that need no special configuration, as an app would share one.
let sharedTransport: CurlTransport = {
    do { return try CurlTransport() } catch { fatalError("CurlTransport did not start: \(error)") }
}()

/// A session on the shared transport with `base` as its base URL.
func session(
    _ base: String = Servers.httpbin,
    transport: CurlTransport = sharedTransport,
    configure: (inout SessionConfiguration) -> Void = { _ in }
) -> Session {
    var configuration = SessionConfiguration(baseURL: URL(string: base))
    configure(&configuration)
    return Session(configuration: configuration, transport: transport)
}

/// A transport with a changed configuration.
func transport(_ configure: (inout CurlTransport.Configuration) -> Void) throws -> CurlTransport {
    var configuration = CurlTransport.Configuration()
    configure(&configuration)
    return try CurlTransport(configuration: configuration)
}

/// The JSON object httpbin answered with.
func json(_ response: DataResponse) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: response.data)
    return try #require(object as? [String: Any])
}

/// A value several threads can set.
final class Box<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// Whether resident-memory bounds are checked: in the plain run only. Under a sanitizer (integration.sh
/// --tsan and --asan set COURIER_SANITIZER) shadow memory, quarantine and the suites running beside (the decoding matrix, the
/// connection pool at 1,024 in flight) make the process's resident size say nothing about one transfer.
let boundsResidentMemory = ProcessInfo.processInfo.environment["COURIER_SANITIZER"] == nil

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: Duration = .seconds(10), _ condition: @Sendable () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while clock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Measures how long `body` takes.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
    let clock = ContinuousClock()
    let start = clock.now
    let value = try await body()
    return (value, clock.now - start)
}

/// The transport error behind a failed call, if any.
func transportCode(_ error: any Error) -> TransportError.Code? {
    ((error as? CourierError)?.underlyingError as? TransportError)?.code
}

/// The process's resident set size in bytes, from /proc.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}

/// A temporary directory for one test.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("courier-it-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Runs `body`, which blocks (a child process, a pipe read), on a thread of its own, and awaits its result.
///
/// Why not on the test's own thread: Swift's cooperative pool has one thread per core, two on the CI machine. A
/// test that held one while `curl` or `sha256sum` ran (hashing a 1 GiB file takes seconds) stalled every other
/// test's continuations for as long, which counted against their "prompt" bounds (`FaultTests` failed at 2.07 s
/// against 2 s in CI; docs/reliability.md).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}

/// Runs `executable` with `arguments` and waits (off the cooperative pool, ``offPool(_:)``): its exit status and
/// what it wrote to stdout.
func runProcess(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
    try await offPool { try runProcessBlocking(executable, arguments) }
}

private func runProcessBlocking(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: Data) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data)
}
