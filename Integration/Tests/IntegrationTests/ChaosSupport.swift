import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// What one chaos case ended with: the response or the error, how long it took, and whether it had to be
/// cancelled because it outlived its bound (a hang).
struct ChaosOutcome: Sendable {
    var response: DataResponse?
    var error: (any Error)?
    var elapsed: Duration
    var hung: Bool

    /// The transport error's code, if the call failed with one.
    var code: TransportError.Code? { error.flatMap(transportCode) }
    /// The response head, from the response or from the error that carries it (a body that failed).
    var head: HTTPResponse? { response?.head ?? (error as? CourierError)?.response }
    /// For a failure message: the code and curl's message, or the status.
    var summary: String {
        if hung { return "no answer within its bound (cancelled after \(elapsed))" }
        if let error { return "\(String(describing: code)) after \(elapsed): \(error)" }
        return "\(response?.status.code ?? 0), \(response?.data.count ?? 0) bytes after \(elapsed)"
    }
}

/// The bound a case must end within: its configured timeout three times over plus 10 s, generous on
/// purpose. The suite runs under ThreadSanitizer and AddressSanitizer with the other core busy, and what a
/// bound must catch is a call that never ends, not a slow one.
func chaosBound(_ timeout: Duration) -> Duration { timeout * 3 + .seconds(10) }

/// The bound of a case ended by a minimum rate (`Timeouts.lowSpeedTime` under `lowSpeedLimit`): libcurl
/// averages the rate over the last 5 s, so a transfer that began fast (an upload filling the socket buffers)
/// stays above the limit for up to 5 s after it stalls; the bound adds that window before the slack.
func chaosRateBound(_ lowSpeedTime: Duration) -> Duration { chaosBound(lowSpeedTime + .seconds(5)) }

/// Sends `request` and reads the whole body, cancelling the call if it outlives `bound` (then `hung`).
func attempt(_ s: Session, _ request: HTTPRequest, body: Body? = nil, bound: Duration) async -> ChaosOutcome {
    let clock = ContinuousClock()
    let start = clock.now
    // nil: the bound passed first.
    let first: Result<DataResponse, CourierError>? = await withTaskGroup(of: Result<DataResponse, CourierError>?.self) { group in
        group.addTask {
            do throws(CourierError) {
                return .success(try await s.data(for: request, body: body))
            } catch {
                return .failure(error)
            }
        }
        group.addTask {
            try? await Task.sleep(for: bound)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
    let elapsed = clock.now - start
    switch first {
    case .success(let response)?: return ChaosOutcome(response: response, error: nil, elapsed: elapsed, hung: false)
    case .failure(let error)?: return ChaosOutcome(response: nil, error: error, elapsed: elapsed, hung: false)
    case .none: return ChaosOutcome(response: nil, error: nil, elapsed: elapsed, hung: true)
    }
}

/// The TCP sockets this process holds open to given peers: the entries of `/proc/self/fd` that are
/// sockets, matched by inode with `/proc/self/net/tcp` and `tcp6` for their ports.
///
/// Why not simply the number of `/proc/self/fd` entries: the integration suites run in parallel in one
/// process, and the others open and close descriptors (connections, files, pipes) all the time, so a
/// difference in the total says nothing about one batch. A socket is this batch's when it leads to a port
/// only the chaos tests use (the chaos servers and their TLS fault listeners), or, through a shared server
/// such as nginx, when its own local port is one the server reported back (nginx's `X-Client-Port`).
enum SocketCensus {
    /// A TCP socket of this process.
    struct Entry: Hashable, Sendable {
        var localPort: Int
        var remotePort: Int
        /// The kernel's state number (1 established, 8 close-wait...).
        var state: Int
    }

    /// Every TCP socket this process has a descriptor for.
    static func entries() -> [Entry] {
        let descriptors = socketDescriptors()
        return rows().filter { descriptors[$0.inode] != nil }.map(\.entry)
    }

    /// The sockets that lead to one of `remotePorts`, or to `clients.server` from one of `clients.all`.
    static func matching(remotePorts: Set<Int>, clients: ClientPorts? = nil) -> [Entry] {
        let local = clients?.all ?? []
        return entries().filter {
            remotePorts.contains($0.remotePort) || ($0.remotePort == clients?.server && local.contains($0.localPort))
        }
    }

    /// How many sockets ``matching(remotePorts:clients:)`` finds.
    static func count(remotePorts: Set<Int>, clients: ClientPorts? = nil) -> Int {
        matching(remotePorts: remotePorts, clients: clients).count
    }

    /// For each TCP socket this process holds to `remotePort`, whether its descriptor is close-on-exec (the
    /// `flags` line of `/proc/self/fdinfo`, octal, `O_CLOEXEC` 02000000): one that is not passes to every program
    /// the process starts.
    static func closeOnExec(remotePort: Int) -> [Bool] {
        let descriptors = socketDescriptors()
        return rows().filter { $0.entry.remotePort == remotePort }.compactMap { row in
            guard let name = descriptors[row.inode], let info = readWhole("/proc/self/fdinfo/\(name)"),
                  let line = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
                  let flags = Int(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
            else { return nil }
            return flags & 0o2000000 != 0
        }
    }

    /// The kernel's TCP sockets (`/proc/self/net/tcp` and `tcp6`), with their inodes: the process's own and others'.
    private static func rows() -> [(inode: Int, entry: Entry)] {
        var found: [(inode: Int, entry: Entry)] = []
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            guard let text = readWhole(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 9, let inode = Int(fields[9]), inode != 0,
                      let local = port(of: fields[1]), let remote = port(of: fields[2]),
                      let state = Int(fields[3], radix: 16)
                else { continue }
                found.append((inode, Entry(localPort: local, remotePort: remote, state: state)))
            }
        }
        return found
    }

    /// This process's socket descriptors: each socket's inode and the descriptor's name in `/proc/self/fd`.
    private static func socketDescriptors() -> [Int: String] {
        let directory = "/proc/self/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var descriptors: [Int: String] = [:]
        for name in names {
            // A descriptor closed between the listing and this read is simply skipped.
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)"),
                  target.hasPrefix("socket:["), target.hasSuffix("]"),
                  let inode = Int(target.dropFirst("socket:[".count).dropLast())
            else { continue }
            descriptors[inode] = name
        }
        return descriptors
    }

    /// A /proc file, read to its end: it reports a size of 0, and Foundation's `String(contentsOfFile:)`
    /// stops after the kernel's first page (27 of 328 lines of `/proc/self/net/tcp` here).
    private static func readWhole(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// "0100007F:1F90" → 8080.
    private static func port(of address: Substring) -> Int? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...], radix: 16)
    }
}

/// OpenSSL refusing libcurl 7.88's second try of a write the closing connection could not take ("SSL_write() error:
/// …bad write retry", 55): a send failure libcurl makes of a connection's end now and then under load (seen beside a
/// CPU hog). It says nothing of what the peer did, so it stays `.sendFailed`, which no retry policy sends again; the
/// tests of a server draining its connections (a GOAWAY, a reload) let it pass.
func isOpenSSLWriteRetryRefusal(_ error: any Error) -> Bool {
    transportCode(error) == .sendFailed && "\(error)".contains("bad write retry")
}

/// The port of a URL such as `http://127.0.0.1:18093`.
func port(of base: String) -> Int {
    URLComponents(string: base)?.port ?? -1
}

/// Local ports a shared server reported back (`X-Client-Port`), gathered across the cases of a batch: with the
/// server's port, they name the batch's connections to it (a local port alone may serve another suite's
/// connection to another server).
final class ClientPorts: Sendable {
    /// The shared server's port.
    let server: Int
    private let ports = Box<Set<Int>>([])
    var all: Set<Int> { ports.value }

    init(server: Int) { self.server = server }

    /// Records the port named by a head's `X-Client-Port`, if any.
    func note(_ head: HTTPResponse?) {
        guard let value = head?.headerFields[HTTPField.Name("X-Client-Port")!], let port = Int(value) else { return }
        ports.update { $0.insert(port) }
    }
}

/// The cases of one batch: a transport of their own, the sessions made on it, and the local ports a shared
/// server reported back.
final class ChaosBatch: Sendable {
    let transport: CurlTransport
    let base: String
    let ports: ClientPorts
    private let made = Box<[(Session, Timeouts)]>([])

    init(base: String) throws {
        self.base = base
        ports = ClientPorts(server: port(of: base))
        transport = try IntegrationTests.transport { $0.certificateAuthorityFile = Servers.caFile }
    }

    /// A session on the batch's transport with these timeouts; it must still be usable after the batch.
    func session(_ timeouts: Timeouts) -> Session {
        let s = IntegrationTests.session(base, transport: transport) { $0.timeouts = timeouts }
        made.update { $0.append((s, timeouts)) }
        return s
    }

    var sessions: [(Session, Timeouts)] { made.value }
}

/// Runs a batch of chaos cases on sessions of their own transport (the closure gets one with `timeouts`;
/// ``ChaosBatch/session(_:)`` makes more), then holds the batch to what every case promises besides its
/// typed error:
/// - each session is still usable: it completes `goodPath` with 200;
/// - no descriptor is left: before the shutdown the batch's sockets (``SocketCensus``) are at most one more
///   than before it (the good requests' connection, which libcurl keeps for reuse when the server keeps it
///   open, as the TLS chaos server and nginx do over HTTP/2; the HTTP/1.1 chaos server closes every one);
///   after `shutdown()`, none.
func chaosBatch(
    _ base: String,
    timeouts: Timeouts,
    goodPath: String = "health",
    remotePorts: Set<Int>,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ cases: (Session, ChaosBatch) async throws -> Void
) async throws {
    let batch = try ChaosBatch(base: base)
    let before = SocketCensus.count(remotePorts: remotePorts)
    let census: @Sendable () -> [SocketCensus.Entry] = { [ports = batch.ports] in
        SocketCensus.matching(remotePorts: remotePorts, clients: ports)
    }

    try await cases(batch.session(timeouts), batch)

    for (s, timeouts) in batch.sessions {
        let good = await attempt(s, try s.makeRequest(.get, goodPath), bound: chaosBound(timeouts.request ?? .seconds(30)))
        batch.ports.note(good.head)
        #expect(good.response?.status == .ok, "the session is not usable after the batch: \(good.summary)", sourceLocation: sourceLocation)
    }
    let kept = await eventually(timeout: .seconds(5)) { census().count <= before + 1 }
    #expect(kept, "sockets left after the batch: \(census()), \(before) before it", sourceLocation: sourceLocation)
    await batch.transport.shutdown()
    let closed = await eventually(timeout: .seconds(5)) { census().count <= before }
    #expect(closed, "sockets left after the shutdown: \(census()), \(before) before the batch", sourceLocation: sourceLocation)
}
