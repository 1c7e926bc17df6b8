import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// Readers that stop reading, on a connection other calls share. Over HTTP/2 every call to a host rides one
/// connection, and a body its reader does not take pauses its stream once the transport holds
/// `responseBufferSize` of it. The other streams, and calls made meanwhile, must go on; a stream paused and resumed
/// hundreds of times must lose nothing; and what the client keeps of a paused stream must stay bounded. libcurl's
/// pause over HTTP/2 has failed each of these in some version (curl issues 4939, a paused stream buffered without
/// bound; 10988, a connection stuck once paused streams held its window), so they are checked here against nginx
/// over TLS with ALPN h2. (Not h2c: Courier opens a new connection for every h2c call on libcurl 7.88, whose h2c
/// connections cannot be reused, so h2c streams never share one.)
///
/// The bound is libcurl's, not the transport's: libcurl 7.88 grants each stream a 32 MiB window and, once a stream
/// is paused, stops renewing it but keeps whatever the server sends within it. So a paused stream costs up to
/// 32 MiB beside `responseBufferSize` (docs/reliability.md, "Bounded defaults").
///
/// The bodies come from the compression server through nginx (`/compressed`), which names the SHA-256 of the
/// decoded body and the client's port of the connection (`X-Client-Port`), so the test knows every call shared one.
@Suite("Paused streams", .serialized)
struct PausedStreamTests {
    static let tlsTransport: CurlTransport = {
        do {
            return try transport {
                $0.certificateAuthorityFile = Servers.caFile
                // Small, so that a reader that stops pauses its stream within a few frames, and a slow one pauses
                // and resumes it thousands of times.
                $0.responseBufferSize = 32 * 1024
            }
        } catch { fatalError("\(error)") }
    }()

    /// Each paused stream's body: past libcurl's 32 MiB window, so that a stream held only by it shows. Under a
    /// sanitizer, which checks no memory bound (``boundsResidentMemory``), 16 MiB is enough for the races.
    static let size = boundsResidentMemory ? "64m" : "16m"

    func session() -> Session {
        IntegrationTests.session(Servers.tls, transport: Self.tlsTransport) { $0.timeouts = Timeouts(request: .seconds(120)) }
    }

    /// Four 64 MiB streams read one chunk each, then nobody reads them for two seconds: a call made meanwhile on the
    /// same connection completes, the client holds at most libcurl's window of each (not the 256 MiB the server has
    /// to send), and each stream then reads to its end byte-exact. (Reading slowly is the next test's.)
    ///
    /// In a process of its own (an exit test; what it expects is reported from there): resident memory is the
    /// process's, and in the test process the other suites' transfers move it by more than this bound allows, while
    /// the hundred megabytes libcurl may hold here broke their bounds (a clean-clone run beside a CPU hog at `8ccd5c0`).
    ///
    /// The child's expectations reach this report, and it records an error it catches as an issue so that the error
    /// does too. What a sanitizer says in the child reaches the scripts' output instead (`log_path`, in
    /// Scripts/lib/common.sh), as swift-testing sends the child's standard error to /dev/null: two clean-clone runs
    /// under AddressSanitizer (at `7693774` and `651966c`) failed this test with exit status 1 and nothing else. Of 60
    /// runs of it with their reports kept, most beside a CPU hog, one failed the same way, on a leak LeakSanitizer
    /// found in Foundation's `Process` at the child's exit (now in Scripts/lib/lsan-suppressions.txt). (Observing the
    /// child's standard error here instead held a thread of the test process's pool for the child's whole life, and the
    /// other suites stalled for 18 s.)
    @Test func aStreamNobodyReadsHoldsNoOtherCall() async {
        await #expect(processExitsWith: .success) {
            do {
                try await PausedStreamTests.readFourStreamsAfterAPause()
            } catch {
                Issue.record(error, "the child threw")
            }
        }
    }

    static func readFourStreamsAfterAPause() async throws {
        let s = PausedStreamTests().session()
        let before = residentBytes()
        let heads = Box<[HTTPResponse]>([])
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seed in 0..<4 {
                group.addTask {
                    let encoding = seed % 2 == 0 ? "identity" : "gzip"
                    let response = try await s.send(try s.makeRequest(.get, "compressed?encoding=\(encoding)&size=\(Self.size)&seed=\(seed)&framing=length"))
                    var iterator = response.body.makeAsyncIterator()
                    let first = try #require(try await iterator.next())
                    heads.update { $0.append(response.head) }
                    await gate.wait()
                    let digest = try await Self.digest(first: first, rest: &iterator, slow: false)
                    #expect(digest == response.head.headerFields[Self.decodedSHA256], "stream \(seed), \(encoding)")
                }
            }
            defer { Task { await gate.open() } }
            #expect(await eventually(timeout: .seconds(60)) { heads.value.count == 4 }, "four streams did not start")
            try await Task.sleep(for: .seconds(2))   // loopback could carry all 256 MiB meanwhile
            let growth = residentBytes() - before

            // Bounded by the request timeout: a call stuck behind the paused streams fails `.timedOut`, never hangs.
            let small = try await s.data(for: try s.makeRequest(.get, "compressed?encoding=gzip&size=64k&seed=9"))
            #expect(small.head.status.code == 200)
            #expect(try await Self.digest(of: small.data) == small.head.headerFields[Self.decodedSHA256])
            let ports = Set((heads.value + [small.head]).map { $0.headerFields[Self.clientPort] ?? "none" })
            #expect(ports.count == 1, "the calls did not share one connection: ports \(ports)")
            // 32 KiB a stream in the transport, up to libcurl's 32 MiB window in libcurl, and 16 MiB for the rest of
            // the process (the four `sha256sum` pipes, TLS buffers, the heap's own slack).
            let bound = 4 * (32 << 20) + (16 << 20)
            if boundsResidentMemory { #expect(growth < bound, "resident memory grew by \(growth >> 20) MiB while four streams were paused") }
            await gate.open()
            try await group.waitForAll()
        }
    }

    /// Eight streams of 4 MiB at once, identity and every coding, each read slowly, so that each pauses and resumes
    /// hundreds of times while the others run on the same connection: every body arrives byte-exact.
    @Test func manyPausesOnOneConnectionLoseNothing() async throws {
        let s = session()
        let encodings = ["identity", "gzip", "deflate", "br", "zstd", "identity", "gzip", "zstd"]
        let ports = Box<Set<String>>([])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (seed, encoding) in encodings.enumerated() {
                group.addTask {
                    let framing = seed % 2 == 0 ? "chunked" : "length"
                    let response = try await s.send(try s.makeRequest(.get, "compressed?encoding=\(encoding)&size=4m&ratio=4&seed=\(seed)&framing=\(framing)"))
                    ports.update { $0.insert(response.head.headerFields[Self.clientPort] ?? "none") }
                    var iterator = response.body.makeAsyncIterator()
                    let digest = try await Self.digest(first: [], rest: &iterator, slow: true)
                    #expect(digest == response.head.headerFields[Self.decodedSHA256], "\(encoding), seed \(seed)")
                }
            }
            try await group.waitForAll()
        }
        #expect(ports.value.count == 1, "the streams did not share one connection: ports \(ports.value)")
    }

    static let decodedSHA256 = HTTPField.Name("X-Decoded-SHA256")!
    static let clientPort = HTTPField.Name("X-Client-Port")!

    /// The SHA-256 (by `sha256sum`) of `first` and what is left of a body. A slow reader sleeps a millisecond every
    /// fourth chunk, so its stream fills the transport's 32 KiB and pauses again and again.
    private static func digest(first: ArraySlice<UInt8>, rest iterator: inout Body.Iterator, slow: Bool) async throws -> String {
        let hasher = try Digest.Hasher()
        hasher.write(first)
        var chunks = 0
        while let chunk = try await iterator.next() {
            hasher.write(chunk)
            chunks += 1
            if slow, chunks % 4 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        return try await hasher.finish()
    }

    private static func digest(of data: Data) async throws -> String {
        let hasher = try Digest.Hasher()
        hasher.write(ArraySlice(data))
        return try await hasher.finish()
    }
}

/// Holds tasks until it is opened.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
