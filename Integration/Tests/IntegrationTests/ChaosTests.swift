import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// What real networks and broken servers do, against Courier: connections reset at any offset of a body,
/// corrupt compressed streams, chunked bodies that end early or lie about their sizes, servers that close
/// right after the head, trickle one byte a second, never read an upload, send heads or trailers without end
/// or a body under thousands of codings or a transfer coding, send bytes nobody asked for on an idle connection,
/// end HTTP/2 streams and connections mid-response, or break the TLS handshake (the chaos server and the TLS chaos
/// server, Integration/Servers/README.md).
///
/// Every case must end with a typed error (a `TransportError` code) within a bound derived from its
/// configured timeouts (``chaosBound(_:)``), never hang, leave no socket behind, and leave its session usable
/// (``chaosBatch(_:timeouts:goodPath:remotePorts:_:)``). Serialized: the socket census of a batch counts the
/// connections to the chaos servers, which only this suite uses, so two of its batches must not overlap.
@Suite("Chaos", .serialized)
struct ChaosTests {
    /// For faults that come at once: a request timeout that never fires first, so a case that waits for
    /// it instead of failing typed shows as `.timedOut` (and a hang as an outlived bound).
    static let prompt = Timeouts(connect: .seconds(5), request: .seconds(10))
    static var promptBound: Duration { chaosBound(.seconds(10)) }
    static var chaosPorts: Set<Int> { [port(of: Servers.chaos)] }
    /// The two routes of the matrices: the chaos server directly over HTTP/1.1 (its port is the suite's
    /// own), and nginx's TLS port over HTTP/2, which proxies /compressed to the compression server (a shared
    /// port: the batch's sockets are found by the `X-Client-Port` nginx reports).
    static var legs: [(base: String, remotePorts: Set<Int>)] { [(Servers.chaos, chaosPorts), (Servers.tls, [])] }

    /// Runs `path` and checks the outcome's code and bound.
    func expect(
        _ s: Session,
        _ path: String,
        body: Body? = nil,
        code expected: TransportError.Code,
        bound: Duration = ChaosTests.promptBound,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ChaosOutcome {
        let outcome = await attempt(s, try s.makeRequest(body == nil ? .get : .post, path), body: body, bound: bound)
        #expect(outcome.code == expected, "\(path): \(outcome.summary)", sourceLocation: sourceLocation)
        #expect(!outcome.hung && outcome.elapsed < bound, "\(path): \(outcome.summary)", sourceLocation: sourceLocation)
        return outcome
    }

    // MARK: Resets at any offset

    /// Offsets drawn from a fixed seed (so a failure replays), plus the first bytes.
    static func offsets(count: Int, below limit: Int, seed: UInt64) -> [Int] {
        var generator = SplitMix64(seed: seed)
        return [0, 1] + (0..<count).map { _ in Int.random(in: 2..<limit, using: &generator) }
    }

    /// A TCP RST after K bytes of a 256 KiB body, K over seeded offsets, with Content-Length and chunked
    /// framing. Directly over HTTP/1.1 the reset is a `.connectionLost`; through nginx over HTTP/2 nginx turns
    /// its upstream's reset into RST_STREAM INTERNAL_ERROR, which is a `.connectionLost` too.
    @Test func resetAtAnyOffsetIsAConnectionLoss() async throws {
        let offsets = Self.offsets(count: 14, below: 256 * 1024, seed: 0xC4A0_5001)
        for (base, remotePorts) in Self.legs {
            try await chaosBatch(base, timeouts: Self.prompt, goodPath: "compressed?encoding=identity&size=1k", remotePorts: remotePorts) { s, batch in
                for framing in ["length", "chunked"] {
                    for offset in offsets {
                        let path = "compressed?encoding=identity&size=256k&framing=\(framing)&reset_at=\(offset)"
                        let outcome = try await expect(s, path, code: .connectionLost)
                        batch.ports.note(outcome.head)
                    }
                }
            }
        }
    }

    // MARK: Corrupt compressed streams

    /// One byte flipped at seeded offsets of a gzip, deflate, br and zstd body (64 KiB at ratio 18), and in
    /// the headers (bytes 0 to 4 and 9) and trailers (the last 5), directly and through nginx over HTTP/2. gzip (CRC-32), deflate (Adler-32) and zstd (content checksum) never let
    /// a changed byte through: the body fails with `.decodingFailed` (or `.truncatedBody` when the flip makes
    /// a length field promise more than follows), or decodes byte-exact (a flip in a field nothing checks,
    /// e.g. gzip's timestamp). brotli has no checksum, so a flip may only change the decoded bytes; it must
    /// still end typed or complete, never hang. At least one flip per coding must be caught.
    @Test func corruptStreamsFailTypedOrDecodeExact() async throws {
        for (base, remotePorts) in Self.legs {
            try await chaosBatch(base, timeouts: Self.prompt, goodPath: "compressed?encoding=identity&size=1k", remotePorts: remotePorts) { s, batch in
                for encoding in ["gzip", "deflate", "br", "zstd"] {
                    let clean = "compressed?encoding=\(encoding)&size=64k&ratio=18&seed=5"
                    let reference = await attempt(s, try s.makeRequest(.get, clean), bound: Self.promptBound)
                    batch.ports.note(reference.head)
                    let response = try #require(reference.response, "\(clean): \(reference.summary)")
                    let expected = try #require(response.head.headerFields[HTTPField.Name("X-Decoded-SHA256")!])
                    let encodedLength = try #require(response.head.headerFields[HTTPField.Name("X-Encoded-Length")!].flatMap(Int.init))
                    #expect(try await sha256(response.data) == expected, "\(clean) does not decode byte-exact")
                    var caught = 0
                    let headers = [2, 3, 4, 9], trailers = [encodedLength - 5, encodedLength - 1]
                    for offset in Self.offsets(count: 8, below: encodedLength, seed: 0xC4A0_5002) + headers + trailers {
                        let path = "\(clean)&corrupt_at=\(offset)"
                        let outcome = await attempt(s, try s.makeRequest(.get, path), bound: Self.promptBound)
                        batch.ports.note(outcome.head)
                        #expect(!outcome.hung && outcome.elapsed < Self.promptBound, "\(path): \(outcome.summary)")
                        if let data = outcome.response?.data {
                            if encoding != "br" {
                                #expect(try await sha256(data) == expected, "\(path): a changed body passed the \(encoding) checksum")
                            }
                        } else {
                            #expect([.decodingFailed, .truncatedBody].contains(outcome.code), "\(path): \(outcome.summary)")
                            caught += 1
                        }
                    }
                    #expect(caught > 0, "\(encoding): no flipped byte was caught")
                }
            }
        }
    }

    func sha256(_ data: Data) async throws -> String {
        let hasher = try Digest.Hasher()
        hasher.write(ArraySlice(data))
        return try await hasher.finish()
    }

    // MARK: Chunked bodies that end early or lie

    /// A chunked body that stops inside a chunk, after a whole chunk without the terminating 0-chunk, or
    /// after the 0-chunk without its blank line, then FIN: `.truncatedBody`, with the head kept. The
    /// complete body (the control) arrives whole.
    @Test func truncatedChunkedBodiesAreTruncated() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for end in ["inside", "no-terminator", "no-final-crlf"] {
                let outcome = try await expect(s, "chunked?size=4096&end=\(end)", code: .truncatedBody)
                #expect(outcome.head?.status == .ok)
            }
            let complete = await attempt(s, try s.makeRequest(.get, "chunked?size=4096&end=complete"), bound: Self.promptBound)
            #expect(complete.response?.data.count == 4096, "\(complete.summary)")
        }
    }

    /// A chunk-size line that is not a size (not hex, negative, beyond 64 bits, too many digits) or that
    /// announces fewer bytes than follow is a `.malformedResponse`; one that announces more than follow
    /// (4096, or 2^63 - 1) ends as `.truncatedBody` when the server closes, or as `.timedOut` at the request
    /// timeout when it keeps the connection open.
    @Test func lyingChunkSizesFailTyped() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for lie in ["fewer", "nonhex", "huge", "too-long", "negative"] {
                _ = try await expect(s, "chunk-lie?lie=\(lie)", code: .malformedResponse)
            }
            for lie in ["more", "max"] {
                _ = try await expect(s, "chunk-lie?lie=\(lie)", code: .truncatedBody)
            }
        }
        let timeout = Duration.seconds(1)
        try await chaosBatch(Servers.chaos, timeouts: Timeouts(connect: .seconds(5), request: timeout), remotePorts: Self.chaosPorts) { s, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lie in ["more", "max"] {
                    group.addTask {
                        let outcome = try await expect(s, "chunk-lie?lie=\(lie)&hold=1", code: .timedOut, bound: chaosBound(timeout))
                        #expect(outcome.elapsed >= timeout * 0.9, "\(outcome.summary)")
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    // MARK: Heads and trailers without end

    /// A server that sends `103` heads, header fields or trailer fields without end, as fast as the client reads:
    /// `.malformedResponse` within moments, never the request's timeout. libcurl ends the first two at its 300
    /// KiB bound on a head; it bounds no trailer fields and keeps every one, so Courier ends them at the same
    /// bound. Before, Courier's memory grew by about 130 MB a second until the timeout, or without end with none;
    /// the `curl` tool still does (900 MB in 5 s). A body with three trailer fields (the control) arrives whole.
    @Test func headsAndTrailersWithoutEndAreMalformed() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for part in ["hints", "fields", "trailers"] {
                let outcome = try await expect(s, "endless?part=\(part)", code: .malformedResponse)
                #expect((outcome.head?.status == .ok) == (part == "trailers"), "\(part): \(outcome.summary)")
            }
            let control = await attempt(s, try s.makeRequest(.get, "endless?part=few-trailers"), bound: Self.promptBound)
            #expect(control.response?.data == Data("hello".utf8), "\(control.summary)")
        }
    }

    // MARK: Content codings stacked many times over

    /// A body compressed once, five times, six times and 1,000 times over, with as many `Content-Encoding:
    /// deflate` entries: up to five decode byte-exact, as curl decodes them; more fail as `.decodingFailed` at
    /// once, as curl refuses them (61, "more than 5 content encodings"). Each coding is a decoder that every byte
    /// passes through: before this bound, 5,000 layers over 100 bytes cost the client 459 MB and 3.4 s.
    @Test func moreThanFiveCodingsAreRefused() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            let text = Data(String(repeating: "layered\n", count: 16).utf8)
            for count in [0, 1, 5] {
                let outcome = await attempt(s, try s.makeRequest(.get, "layers?count=\(count)"), bound: Self.promptBound)
                #expect(outcome.response?.data == text, "\(count) codings: \(outcome.summary)")
            }
            for count in [6, 1000] {
                _ = try await expect(s, "layers?count=\(count)", code: .decodingFailed)
            }
        }
    }

    // MARK: Transfer codings

    /// A body under `Transfer-Encoding: gzip, chunked`, `gzip` (ended by the connection's close), `deflate, chunked`
    /// or `chunked` arrives decoded, as curl decodes it, with automatic decompression on or off (a transfer coding
    /// belongs to the connection); one under a coding nobody knows (`foo, chunked`) fails `.decodingFailed`, as curl
    /// refuses it (61). Under a content coding as well, decompression off keeps the content coding and undoes the
    /// transfer coding. Before, such bodies arrived still compressed, with nothing in the head to say so. `chunked`
    /// applied twice (forbidden) fails `.malformedResponse`; it arrived with one chunked framing left in its bytes.
    @Test func transferCodingsAreUndone() async throws {
        let text = Data(String(repeating: "transfer coded\n", count: 200).utf8)
        let raw = try transport { $0.automaticDecompression = false }
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            let undecoded = session(Servers.chaos, transport: raw) { $0.timeouts = Self.prompt }
            for te in ["gzip,chunked", "gzip", "deflate,chunked", "chunked"] {
                for (label, client) in [("decoding", s), ("not decoding", undecoded)] {
                    let outcome = await attempt(client, try client.makeRequest(.get, "transfer-coding?te=\(te)"), bound: Self.promptBound)
                    #expect(outcome.response?.data == text, "\(te), \(label): \(outcome.summary)")
                }
            }
            for client in [s, undecoded] {
                _ = try await expect(client, "transfer-coding?te=foo,chunked", code: .decodingFailed)
                // Forbidden, and undone once by libcurl: the body kept the inner framing (curl prints it).
                _ = try await expect(client, "transfer-coding?te=chunked,chunked", code: .malformedResponse)
            }
            let both = "transfer-coding?te=gzip,chunked&content=gzip"
            let decoded = await attempt(s, try s.makeRequest(.get, both), bound: Self.promptBound)
            #expect(decoded.response?.data == text, "\(decoded.summary)")
            let kept = await attempt(undecoded, try undecoded.makeRequest(.get, both), bound: Self.promptBound)
            #expect(kept.response?.data.starts(with: [0x1F, 0x8B]) == true && kept.response?.data != text, "\(kept.summary)")
            #expect(kept.response?.head.headerFields[.contentEncoding] == "gzip")
        }
        await raw.shutdown()
    }

    // MARK: Lengths that cannot frame a body

    /// A `Content-Length` that is no count (`0x5`, `+5`, `5 5`, `-5`, past 2⁶³ − 1, a folded `5` ` 10`), two that
    /// disagree (two fields, or `5, 10`), or one with a space before its colon (and a `Transfer-Encoding` so
    /// written): RFC 9112 makes such framing an unrecoverable error, and the call fails `.malformedResponse` before
    /// a byte of the body is read. libcurl 7.88 framed them all, as curl does: the last of two lengths, 0 bytes for
    /// `0x5` (leaving "helloWORLD" on the connection), 5 for `+5`, no length for the space (the call waited for the
    /// connection's end), so the body depended on which reading a client or a proxy took. The controls (`10`,
    /// `10, 10`, two fields of `10`) arrive whole, with their length, and every case is followed by a good request on
    /// the session. A `101 Switching Protocols` to a request that asked for no upgrade is malformed too.
    @Test func aContentLengthThatCannotFrameTheBodyIsMalformed() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for name in ["two-lengths", "list-differ", "hex", "plus", "spaces", "negative", "huge", "folded",
                         "space-before-colon", "te-space-before-colon"] {
                let outcome = try await expect(s, "content-length?case=\(name)", code: .malformedResponse)
                #expect(outcome.head == nil, "\(name): \(outcome.summary)")
                let next = await attempt(s, try s.makeRequest(.get, "content-length?case=plain"), bound: Self.promptBound)
                #expect(next.response?.data == Data("helloWORLD".utf8), "after \(name): \(next.summary)")
            }
            for name in ["plain", "list-same", "two-same"] {
                let outcome = await attempt(s, try s.makeRequest(.get, "content-length?case=\(name)"), bound: Self.promptBound)
                #expect(outcome.response?.data == Data("helloWORLD".utf8), "\(name): \(outcome.summary)")
                // Two equal counts are one, announced as the body's length.
                let streamed = try await s.send(try s.makeRequest(.get, "content-length?case=\(name)"))
                #expect(streamed.body.length == .known(10), "\(name)")
                #expect(try await streamed.body.collect(upTo: 1 << 20) == Data("helloWORLD".utf8), "\(name)")
            }
            // A switch of protocols nobody asked for: what follows is not an HTTP body (curl prints it as one).
            _ = try await expect(s, "switch-protocols", code: .malformedResponse)
        }
    }

    /// A head that frames its body both by `Transfer-Encoding: chunked` and by `Content-Length` (RFC 9112 section
    /// 6.1: a sign of request smuggling or response splitting) is read by its chunks, as libcurl and every browser
    /// read it, and its connection carries nothing more: a party between that framed the body by the length would
    /// have passed on the rest as the next response. It was kept for the next request (curl 7.88 keeps it too). So is
    /// the connection of an HTTP/1.0 head with a transfer coding, which HTTP/1.0 does not have (section 6.1). The
    /// control: a head with a length alone, whose connection the next request reuses; then ten in a row, each on a
    /// connection of its own.
    @Test func aHeadFramedByBothChunksAndALengthEndsItsConnection() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for (name, reused) in [("te-and-length", false), ("te-http10", false), ("plain", true)] {
                let first = await attempt(s, try s.makeRequest(.get, "content-length?case=\(name)"), bound: Self.promptBound)
                #expect(first.response?.data == Data("helloWORLD".utf8), "\(name): \(first.summary)")
                let next = await attempt(s, try s.makeRequest(.get, "content-length?case=plain"), bound: Self.promptBound)
                #expect(next.response?.data == Data("helloWORLD".utf8), "after \(name): \(next.summary)")
                #expect(next.response?.metrics?.reusedConnection == reused, "after \(name): reused \(String(describing: next.response?.metrics?.reusedConnection))")
            }
            // Each on a new connection but the first, which may take the control's.
            for index in 0..<10 {
                let outcome = await attempt(s, try s.makeRequest(.get, "content-length?case=te-and-length"), bound: Self.promptBound)
                #expect(outcome.response?.data == Data("helloWORLD".utf8), "\(index): \(outcome.summary)")
                #expect(index == 0 || outcome.response?.metrics?.reusedConnection == false,
                        "\(index): reused \(String(describing: outcome.response?.metrics?.reusedConnection))")
            }
        }
    }

    // MARK: Bytes nobody asked for, on an idle connection

    /// A server sends bytes after an answer, once the client has read it and put the connection back for reuse:
    /// a body to a HEAD, a 204 or a 304, more than `Content-Length` said, or a whole response nobody asked for
    /// (`/extra-bytes` of the chaos server, and of the TLS chaos server over HTTP/1.1, which say on another
    /// connection when the bytes went out). The next request to the host must get its own answer, on a new
    /// connection. curl 7.88 reuses the connection and reads those bytes as the next answer: it fails (1, "HTTP/0.9
    /// when not allowed") or takes the unasked-for response as its own; so did Courier, on the same libcurl.
    @Test(arguments: ["head-body", "204-body", "304-body", "long-body", "response"], [false, true])
    func bytesNobodyAskedForAreNotTheNextAnswer(kind: String, overTLS: Bool) async throws {
        let (base, ports) = overTLS ? (Servers.tlsChaos, [port(of: Servers.tlsChaos)]) : (Servers.chaos, Self.chaosPorts)
        let configure: (inout CurlTransport.Configuration) -> Void = {
            $0.certificateAuthorityFile = Servers.caFile
            $0.httpVersion = .http1_1
        }
        let client = try transport(configure)
        let status = try transport(configure)
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: ports) { _, _ in
            let s = session(base, transport: client) { $0.timeouts = Self.prompt }
            let checker = session(base, transport: status) { $0.timeouts = Self.prompt }
            for round in 1...3 {
                let token = "\(kind)-\(overTLS)-\(round)-\(UInt64.random(in: 0...UInt64.max))"
                let method: HTTPRequest.Method = kind == "head-body" ? .head : .get
                let first = await attempt(s, try s.makeRequest(method, "extra-bytes?kind=\(kind)&token=\(token)"), bound: Self.promptBound)
                #expect(first.response != nil, "\(kind), first answer: \(first.summary)")
                // Asked on another transport, whose connections are its own, until the server has sent them (50 ms
                // after the answer; the suite's bound for anything that comes at once).
                var delivered = false
                let deadline = ContinuousClock.now + Self.promptBound
                while !delivered, ContinuousClock.now < deadline {
                    let answer = await attempt(checker, try checker.makeRequest(.get, "extra-bytes-status?token=\(token)"), bound: Self.promptBound)
                    delivered = answer.response?.data == Data("sent\n".utf8)
                    if !delivered { try await Task.sleep(for: .milliseconds(10)) }
                }
                #expect(delivered, "\(kind): the server never sent its extra bytes")
                let next = await attempt(s, try s.makeRequest(.get, "extra-bytes-status?token=next"), bound: Self.promptBound)
                #expect(next.response?.status == .ok && next.response?.data == Data("waiting\n".utf8),
                        "\(kind), round \(round), the next request: \(next.summary)")
                #expect(next.response?.metrics?.reusedConnection == false, "\(kind): the next request reused the connection with bytes waiting")
            }
        }
        await client.shutdown()
        await status.shutdown()
    }

    /// Every idle connection to a host got bytes nobody asked for (eight requests at once, each answered with a
    /// second response after it): the next requests each get their own answer. Skipping a connection costs a request
    /// one of libcurl's five retries, so the first of them failed (`.sendFailed`) until the other idle connections
    /// with bytes waiting were closed as soon as the first was found.
    @Test func manyIdleConnectionsWithBytesWaitingAreAllSkipped() async throws {
        let client = try transport { $0.maximumConnectionsPerHost = 8 }
        let status = try transport { _ in }
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { _, _ in
            let s = session(Servers.chaos, transport: client) { $0.timeouts = Self.prompt }
            let checker = session(Servers.chaos, transport: status) { $0.timeouts = Self.prompt }
            let group = "many-\(UInt64.random(in: 0...UInt64.max))"
            let tokens = (0..<8).map { "\(group)-\($0)" }
            // The server answers none of the eight before all have arrived, so each holds a connection of its own.
            let firsts = await withTaskGroup(of: Int.self) { tasks -> [Int] in
                for token in tokens {
                    tasks.addTask {
                        let path = "extra-bytes?kind=response&token=\(token)&group=\(group)&group_size=8"
                        guard let request = try? s.makeRequest(.get, path) else { return 0 }
                        let outcome = await attempt(s, request, bound: Self.promptBound)
                        return outcome.response?.metrics?.reusedConnection == false ? 1 : 0
                    }
                }
                return await tasks.reduce(into: []) { $0.append($1) }
            }
            #expect(firsts.reduce(0, +) == 8, "the first requests did not each have a connection of their own")
            let deadline = ContinuousClock.now + Self.promptBound
            for token in tokens {
                var delivered = false
                while !delivered, ContinuousClock.now < deadline {
                    let answer = await attempt(checker, try checker.makeRequest(.get, "extra-bytes-status?token=\(token)"), bound: Self.promptBound)
                    delivered = answer.response?.data == Data("sent\n".utf8)
                    if !delivered { try await Task.sleep(for: .milliseconds(10)) }
                }
                #expect(delivered, "the server never sent its extra bytes")
            }
            for index in 0..<8 {
                let next = await attempt(s, try s.makeRequest(.get, "extra-bytes-status?token=none"), bound: Self.promptBound)
                #expect(next.response?.data == Data("waiting\n".utf8), "request \(index): \(next.summary)")
            }
        }
        await client.shutdown()
        await status.shutdown()
    }

    /// A `Location` whose bytes are not UTF-8 (a Latin-1 `é`, as old servers send; httpbin percent-encodes its own)
    /// is followed byte for byte, percent-encoded, as curl follows it; it went to `%EF%BF%BD` (U+FFFD) instead.
    /// The chaos server echoes the target it received.
    @Test func aLocationThatIsNotUTF8IsFollowedByteForByte() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            let port = port(of: Servers.chaos)
            for (location, target) in [
                ("/echo-target/caf%E9", "/echo-target/caf%E9"),
                ("/echo-target/caf%C3%A9%20x", "/echo-target/caf%C3%A9%20x"),
                ("http://127.0.0.1:\(port)/echo-target/%FF%FE?q=%E9", "/echo-target/%FF%FE?q=%E9"),
            ] {
                let outcome = await attempt(s, try s.makeRequest(.get, "redirect-raw?location=\(location)"), bound: Self.promptBound)
                #expect(outcome.response.map { String(decoding: $0.data, as: UTF8.self) } == target, "\(location): \(outcome.summary)")
                #expect(outcome.response?.history.count == 1)
            }
        }
    }

    /// A redirect with two `Location` fields that differ is followed nowhere: curl and Go follow the first, okhttp the
    /// last, and Chrome refuses it, so a proxy or cache between may go elsewhere than the client; curl 7.88 follows the
    /// first, and so did Courier. Fields that say the same, byte for byte, are one.
    @Test func aRedirectWithLocationsThatDifferIsFollowedNowhere() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for (query, other) in [("location=/echo-target/a&location=/echo-target/b", "/echo-target/b"),
                                   ("location=/echo-target/a&location=/echo-target/a&location=http://127.0.0.1:1/x", "http://127.0.0.1:1/x"),
                                   ("location=/echo-target/caf%C3%A9&location=/echo-target/cafe%CC%81", "/echo-target/cafe\u{301}")] {
                let outcome = await attempt(s, try s.makeRequest(.get, "redirect-raw?\(query)"), bound: Self.promptBound)
                let error = (outcome.error as? CourierError)?.underlyingError as? RedirectError
                #expect(error?.reason == .ambiguousLocation, "\(query): \(outcome.summary)")
                #expect(error?.otherLocation == other && error?.history.count == 1, "\(query): \(String(describing: error))")
            }
            let same = await attempt(s, try s.makeRequest(.get, "redirect-raw?location=/echo-target/a&location=/echo-target/a"), bound: Self.promptBound)
            #expect(same.response.map { String(decoding: $0.data, as: UTF8.self) } == "/echo-target/a", "\(same.summary)")
        }
    }

    /// The control: connections without bytes waiting are reused as before: nginx over HTTP/1.1 in cleartext and
    /// over TLS, and over HTTP/2 (where frames between exchanges are the protocol's own). Not h2c, whose connections
    /// Courier never reuses on libcurl 7.88 (`CurlOptions`).
    @Test func idleConnectionsWithoutBytesWaitingAreReused() async throws {
        let tls = try transport { $0.certificateAuthorityFile = Servers.caFile }
        for (base, client) in [(Servers.nginx, sharedTransport), (Servers.tlsHTTP1, tls), (Servers.tls, tls)] {
            let s = session(base, transport: client) { $0.timeouts = Self.prompt }
            _ = try await s.data(for: try s.makeRequest(.get, "json"))
            for _ in 1...5 {
                let again = try await s.data(for: try s.makeRequest(.get, "json"))
                #expect(again.metrics?.reusedConnection == true, "\(base): \(String(describing: again.metrics))")
            }
        }
        await tls.shutdown()
    }

    /// A server that closes a kept-alive connection as the next request arrives on it (an idle timeout, a restart:
    /// `/answer-once` reads the request and closes, with a FIN or an RST) has processed nothing, and libcurl sends
    /// the request again on a new connection, as curl does. Every time: libcurl 7.88 counts a handle's retries
    /// over all its transfers and fails the sixth with "Connection died, tried 5 times before giving up" (curl
    /// #19066), and the transport's handles serve many transfers, so calls 7, 14 and 21 of this run failed
    /// `.sendFailed` (FIN) or `.connectionLost` (RST) before a handle that retried was replaced.
    @Test(arguments: ["fin", "reset"])
    func aConnectionClosedAsTheNextRequestArrivesIsRetriedEveryTime(close: String) async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for call in 1...21 {
                // GET, and PUT and POST with bodies libcurl rewinds for the second attempt.
                let (method, body): (HTTPRequest.Method, Body?) = [(.get, nil), (.put, Body("put")), (.post, Body("post"))][call % 3]
                let outcome = await attempt(s, try s.makeRequest(method, "answer-once?close=\(close)"), body: body, bound: Self.promptBound)
                #expect(outcome.response?.status == .ok && outcome.response?.data == Data("once\n".utf8), "call \(call), \(method): \(outcome.summary)")
            }
        }
    }

    // MARK: Servers that close right after the head

    /// A 200 head (Content-Length or chunked), then the connection closes: a FIN is `.truncatedBody`, an RST
    /// `.connectionLost`; either way the error carries the head.
    @Test func closeRightAfterTheHead() async throws {
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.chaosPorts) { s, _ in
            for framing in ["length", "chunked"] {
                for (reset, code) in [(0, TransportError.Code.truncatedBody), (1, .connectionLost)] {
                    let outcome = try await expect(s, "close-after-head?framing=\(framing)&reset=\(reset)", code: code)
                    #expect(outcome.head?.status == .ok, "\(framing) reset=\(reset): \(outcome.summary)")
                }
            }
        }
    }

    // MARK: Slow servers

    /// One byte a second, of the body or of the head itself: an idle limit (1 byte/s) never fires, so what
    /// ends it is the request timeout, or a minimum rate (`lowSpeedLimit` 100 bytes/s over 1 s). Both are
    /// `.timedOut`, no earlier than the limit. The four run at once (they only wait).
    @Test func oneByteASecondIsBoundByTheDeadlineOrTheMinimumRate() async throws {
        let deadline = Timeouts(connect: .seconds(5), request: .seconds(2))
        let minimumRate = Timeouts(connect: .seconds(5), request: nil, lowSpeedTime: .seconds(1), lowSpeedLimit: 100)
        try await chaosBatch(Servers.chaos, timeouts: deadline, remotePorts: Self.chaosPorts) { s, batch in
            let rated = batch.session(minimumRate)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (session, limit) in [(s, Duration.seconds(2)), (rated, .seconds(1))] {
                    for part in ["body", "head"] {
                        group.addTask {
                            let bound = session === rated ? chaosRateBound(limit) : chaosBound(limit)
                            let outcome = try await expect(session, "trickle?part=\(part)&interval_ms=1000", code: .timedOut, bound: bound)
                            #expect(outcome.elapsed >= limit * 0.9, "\(part), limit \(limit): \(outcome.summary)")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    // MARK: A server that never reads the upload

    /// 16 MiB uploaded to a server that reads none of it. Silent, the upload stalls once the socket buffers
    /// are full: `.timedOut` at the request timeout, or at the minimum rate (``chaosRateBound(_:)``: the first
    /// megabytes go fast, and libcurl's 5 s average drops below the limit only a few seconds after the stall;
    /// curl itself takes 7.2 s for a 1 s limit, Courier 9 s). Answering 413 at once and closing unread (which the kernel turns into an
    /// RST): the 413 arrives as a response, as curl reports it, or the reset does as `.connectionLost`. Closing
    /// unread without an answer (`answer=reset`, a server that went away): `.connectionLost`, whether libcurl met
    /// the reset reading or sending (a send the peer reset was `.sendFailed`, which no retry policy sent again).
    /// The four kinds run at once.
    @Test func unreadUploadsEndTyped() async throws {
        let upload = Body(Data(count: 16 << 20))
        let timeout = Duration.seconds(2)
        let minimumRate = Timeouts(connect: .seconds(5), request: nil, lowSpeedTime: .seconds(1), lowSpeedLimit: 1000)
        try await chaosBatch(Servers.chaos, timeouts: Timeouts(connect: .seconds(5), request: timeout), remotePorts: Self.chaosPorts) { s, batch in
            let rated = batch.session(minimumRate)
            let prompt = batch.session(Self.prompt)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let outcome = try await expect(s, "no-read", body: upload, code: .timedOut, bound: chaosBound(timeout))
                    #expect(outcome.elapsed >= timeout * 0.9, "\(outcome.summary)")
                }
                group.addTask {
                    let outcome = try await expect(rated, "no-read", body: upload, code: .timedOut, bound: chaosRateBound(.seconds(1)))
                    #expect(outcome.elapsed >= .seconds(1) * 0.9, "\(outcome.summary)")
                }
                group.addTask {
                    for _ in 0..<5 {
                        let outcome = await attempt(prompt, try prompt.makeRequest(.post, "no-read?answer=413"), body: upload, bound: Self.promptBound)
                        #expect(!outcome.hung && outcome.elapsed < Self.promptBound, "\(outcome.summary)")
                        if let response = outcome.response {
                            #expect(response.status.code == 413, "\(outcome.summary)")
                        } else {
                            #expect(outcome.code == .connectionLost, "\(outcome.summary)")
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<5 {
                        _ = try await expect(prompt, "no-read?answer=reset", body: upload, code: .connectionLost)
                    }
                }
                try await group.waitForAll()
            }
            // Every connection served one request: a send that met its reset was on a connection opened for the call,
            // which the transport never sends again itself.
            #expect(batch.transport.connectionLossResends == 0)
        }
    }

    /// A 4 MiB POST on an HTTP/1 connection kept from an earlier call, which the server closes with the body unread as
    /// soon as it has the request's head (`/answer-once?close=unread&hold_ms=0`): the kernel's RST meets the client
    /// sending (about one call in four here) or reading, which libcurl answers by sending the request again itself. A
    /// send that met it was `.connectionLost` (55, "Send failure: Broken pipe" or "Connection reset by peer"), which
    /// libcurl leaves to its caller; the transport now sends it again on a new connection, and every call arrives. Up
    /// to 200 calls, until one was sent again. With `resendsOnConnectionLoss` off, a call may fail, as `.connectionLost`
    /// only.
    @Test func aSendThatMeetsAKeptConnectionsCloseIsSentAgain() async throws {
        let body = Body(Data(repeating: 1, count: 4 << 20))
        let path = "answer-once?close=unread&hold_ms=0"
        for resending in [true, false] {
            let t = try transport { $0.resendsOnConnectionLoss = resending }
            let s = session(Servers.chaos, transport: t) { $0.timeouts = Self.prompt }
            var outcomes: [ChaosOutcome] = []
            for _ in 0..<(resending ? 200 : 20) {
                // Answered, and the connection kept for the POST.
                let first = await attempt(s, try s.makeRequest(.get, path), bound: Self.promptBound)
                #expect(first.response?.data == Data("once\n".utf8), "the GET: \(first.summary)")
                outcomes.append(await attempt(s, try s.makeRequest(.post, path), body: body, bound: Self.promptBound))
                if resending, t.connectionLossResends > 0, outcomes.count >= 20 { break }
            }
            if resending {
                #expect(t.connectionLossResends > 0, "no send met the close in \(outcomes.count) calls")
                for outcome in outcomes { #expect(outcome.response?.data == Data("once\n".utf8), "\(outcome.summary)") }
            } else {
                #expect(t.connectionLossResends == 0)
                for outcome in outcomes where outcome.response == nil { #expect(outcome.code == .connectionLost, "\(outcome.summary)") }
            }
            await t.shutdown()
        }
    }

    /// A request whose answer is slow to begin (its head trickles in, 30 s in all) must not hold the other
    /// requests to the same host: the fast one completes while the slow one still waits, in well under half
    /// the slow one's 20 s timeout (it takes milliseconds). Courier used to set libcurl's PIPEWAIT for every
    /// request, which in cleartext, where no connection can multiplex, made the fast request wait for the slow
    /// one's head or its timeout.
    @Test func aSlowHeadDoesNotHoldOtherRequestsToTheHost() async throws {
        let timeout = Duration.seconds(20)
        try await chaosBatch(Servers.chaos, timeouts: Timeouts(connect: .seconds(5), request: timeout), remotePorts: Self.chaosPorts) { s, _ in
            let slowEnded = Box(false)
            let slow = Task {
                let outcome = await attempt(s, try s.makeRequest(.get, "trickle?part=head&interval_ms=100&bytes=300"), bound: chaosBound(timeout))
                slowEnded.value = true
                return outcome
            }
            // Let the slow request take the host's first connection.
            try await Task.sleep(for: .milliseconds(300))
            let fast = await attempt(s, try s.makeRequest(.get, "health"), bound: chaosBound(timeout))
            #expect(fast.response?.status == .ok, "\(fast.summary)")
            #expect(!slowEnded.value && fast.elapsed < timeout / 2, "the request waited for the slow one: \(fast.summary)")
            // Cancelled, it ends at once; the batch then checks that its connection was closed.
            slow.cancel()
            _ = try await slow.value
        }
    }

    // MARK: The socket census

    /// The census sees a connection while it is open and not after the shutdown, both by the server's port
    /// and by the local port nginx reports: otherwise every batch's socket check would pass for nothing.
    @Test func theSocketCensusSeesOpenConnections() async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let ports = ClientPorts(server: port(of: Servers.tls))
        let tlsChaos = Self.tlsChaosPorts
        let before = SocketCensus.count(remotePorts: tlsChaos)
        // HTTP/2 over TLS: libcurl keeps both connections open for reuse.
        _ = try await session(Servers.tlsChaos, transport: t).get("health").response
        let viaNginx = try await session(Servers.tls, transport: t).get("compressed?encoding=identity&size=1k").response
        ports.note(viaNginx.head)
        #expect(ports.all.count == 1, "nginx reported no X-Client-Port")
        #expect(SocketCensus.count(remotePorts: tlsChaos) == before + 1)
        #expect(SocketCensus.count(remotePorts: [], clients: ports) == 1)
        await t.shutdown()
        #expect(await eventually(timeout: .seconds(5)) {
            SocketCensus.count(remotePorts: tlsChaos) == before && SocketCensus.count(remotePorts: [], clients: ports) == 0
        })
    }
}
