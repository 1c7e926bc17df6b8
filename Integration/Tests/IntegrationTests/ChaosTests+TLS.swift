import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// HTTP/2 streams and connections ended mid-response, and TLS handshakes that fail, against the TLS chaos
/// server (HTTP/2 over TLS with ALPN h2; never h2c, whose connections libcurl 7.88 cannot reuse).
extension ChaosTests {
    static var tlsChaosPorts: Set<Int> { [port(of: Servers.tlsChaos)] }

    /// The body every route of the TLS chaos server sends: byte i is (i + seed) mod 251. Built from whole
    /// periods (a byte at a time takes seconds for 4 MiB in a debug build under ThreadSanitizer).
    static func patternBody(size: Int, seed: Int = 0) -> Data {
        let start = seed % 251
        let period = (start..<251).map { UInt8($0) } + (0..<start).map { UInt8($0) }
        var data = Data(capacity: size)
        while data.count < size { data.append(contentsOf: period.prefix(size - data.count)) }
        return data
    }

    /// RST_STREAM before the head, right after it, or after 1,000 bytes of a 64 KiB body. An abort
    /// (INTERNAL_ERROR, CANCEL) is the HTTP/2 form of a reset connection: `.connectionLost`. REFUSED_STREAM
    /// before the head is retried by libcurl on new connections, then `.connectionLost`. PROTOCOL_ERROR says
    /// the exchange broke the protocol: `.malformedResponse`. NO_ERROR ends the stream short of its
    /// Content-Length: `.truncatedBody`. The connection survives every one, and serves the good request.
    @Test func streamResetsFailTyped() async throws {
        let cases: [(code: String, after: [Int], expected: TransportError.Code)] = [
            ("INTERNAL_ERROR", [-1, 0, 1000], .connectionLost),
            ("CANCEL", [-1, 0, 1000], .connectionLost),
            ("PROTOCOL_ERROR", [0, 1000], .malformedResponse),
            ("NO_ERROR", [0, 1000], .truncatedBody),
            ("NO_ERROR", [-1], .connectionLost),
            ("REFUSED_STREAM", [-1], .connectionLost),
        ]
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, batch in
            for (code, offsets, expected) in cases {
                for after in offsets {
                    let outcome = try await expect(s, "rst?code=\(code)&after=\(after)", code: expected)
                    #expect((outcome.head?.status == .ok) == (after >= 0), "\(code) after \(after): \(outcome.summary)")
                }
            }
            // A stream the server reset may have been processed: the transport never sends it again itself.
            #expect(batch.transport.connectionLossResends == 0)
        }
    }

    /// GOAWAY whose last-stream-id is below the stream (the server never processed the request), before the
    /// head or mid-body, then the connection closes: the request fails `.connectionLost` within its bound, as a
    /// reset connection does. libcurl 7.88 reports it as a bare `CURLE_HTTP2` (16, "Error in the HTTP2 framing
    /// layer", no detail), which Courier took for a framing error (`.malformedResponse`, never retried) until
    /// `CurlErrors` told the bare code apart. A graceful GOAWAY (last-stream-id = the stream) followed by the
    /// rest of the body succeeds byte-exact, 64 KiB or 4 MiB.
    @Test func goawayMidResponse() async throws {
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, _ in
            for code in ["NO_ERROR", "INTERNAL_ERROR"] {
                for after in [-1, 0, 1000] {
                    let path = "goaway?last=below&code=\(code)&after=\(after)"
                    let outcome = try await expect(s, path, code: .connectionLost)
                    #expect((outcome.head?.status == .ok) == (after >= 0), "\(path): \(outcome.summary)")
                }
            }
            for (size, after) in [(65536, -1), (65536, 0), (65536, 1000), (4 << 20, 100_000)] {
                let path = "goaway?last=stream&after=\(after)&size=\(size)&seed=\(after + 1)"
                let outcome = await attempt(s, try s.makeRequest(.get, path), bound: Self.promptBound)
                #expect(outcome.response?.data == Self.patternBody(size: size, seed: after + 1), "\(path): \(outcome.summary)")
            }
        }
    }

    /// A server that drains a connection with a GOAWAY refusing the stream (`once=KEY`: only the first request
    /// naming the key meets it; its retry, on a new connection, gets the whole body), before the head. Under
    /// `RetryPolicy` a GET is sent again and arrives byte-exact, one call at a time or eight at once (libcurl
    /// sends some of those again itself, on the connection it opens next); a POST, which the policy does not send
    /// twice, fails `.connectionLost`. Before the bare `CURLE_HTTP2` was a lost connection, every refused call
    /// failed `.malformedResponse` and none was retried. (A GOAWAY that refuses a stream whose head came is a
    /// body cut short, which `RetryPolicy` never sends again, whatever the method. Of eight at once, one may fail
    /// `.sendFailed` with OpenSSL's "bad write retry", libcurl's write on the closing connection; seen beside a CPU hog.)
    @Test func aStreamARefusingGOAWAYLeftIsSentAgainUnderARetryPolicy() async throws {
        // The transport's own resend is off, which would send every refused call again itself.
        let t = try transport {
            $0.certificateAuthorityFile = Servers.caFile
            $0.resendsOnConnectionLoss = false
        }
        let attempts = Box(0)
        let s = session(Servers.tlsChaos, transport: t) {
            $0.retrier = ConnectionTests.CountingRetrier(attempts: attempts, policy: RetryPolicy(exponentialBackoffScale: 0))
            $0.timeouts = Self.prompt
        }
        let run = UUID().uuidString
        let path = "goaway?last=below&after=-1&seed=3&once=\(run)-get"
        let outcome = await attempt(s, try s.makeRequest(.get, path), bound: Self.promptBound)
        #expect(outcome.response?.data == Self.patternBody(size: 65536, seed: 3), "\(path): \(outcome.summary)")
        #expect(attempts.value == 2, "\(path): \(attempts.value) decisions, \(outcome.summary)")
        attempts.value = 0
        let post = await attempt(s, try s.makeRequest(.post, "goaway?last=below&after=-1&once=\(run)-post"), body: Body("x"), bound: Self.promptBound)
        #expect(post.code == .connectionLost, "POST: \(post.summary)")
        #expect(attempts.value == 1, "POST: \(attempts.value) decisions")
        for round in 0..<10 {
            let path = "goaway?last=below&after=-1&seed=5&once=\(run)-together\(round)"
            let request = try s.makeRequest(.get, path)
            let outcomes = await withTaskGroup(of: ChaosOutcome.self) { group in
                for _ in 0..<8 { group.addTask { await attempt(s, request, bound: Self.promptBound) } }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for outcome in outcomes where !isOpenSSLWriteRetryRefusal(outcome.error ?? CancellationError()) {
                #expect(outcome.response?.data == Self.patternBody(size: 65536, seed: 5), "round \(round): \(outcome.summary)")
            }
        }
        await t.shutdown()
    }

    /// A stream that a GOAWAY refuses (its last-stream-id below the stream, so the server never processed it) is sent
    /// again by the transport itself, once, with no retry policy, whether its connection was kept from an earlier call
    /// or opened for it: a GET, a POST of 100 KB (all of it sent before the refusal, which the server gives only once the
    /// request ended, so the body is rewound) and a PUT
    /// all arrive byte-exact, the server reading each body whole (its SHA-256), counted by `connectionLossResends`.
    /// libcurl 7.88 leaves such a refusal to its caller (a bare error 16). Not sent again: a refusal after part of the
    /// answer came, and, with `resendsOnConnectionLoss` off, any of them (each then fails `.connectionLost`). Its
    /// observers see one exchange: one `requestSent`.
    @Test func aStreamAGOAWAYRefusedIsSentAgainByTheTransport() async throws {
        let run = UUID().uuidString
        for resending in [true, false] {
            let t = try transport {
                $0.certificateAuthorityFile = Servers.caFile
                $0.resendsOnConnectionLoss = resending
            }
            let s = session(Servers.tlsChaos, transport: t) { $0.timeouts = Self.prompt }
            // A first call opens a connection, which the next call is given; the refusal closes it.
            func openConnection() async throws {
                let opener = await attempt(s, try s.makeRequest(.get, "data?size=10"), bound: Self.promptBound)
                #expect(opener.response?.data == Self.patternBody(size: 10), "opener: \(opener.summary)")
            }
            var resends = 0
            let bodies: [(HTTPRequest.Method, Data?)] = [(.get, nil), (.post, Data(repeating: 7, count: 100_000)), (.put, Data("x".utf8))]
            for (method, bytes) in bodies {
                try await openConnection()
                let path = "goaway?last=below&after=-1&seed=3&once=\(run)-\(resending)-\(method)"
                let outcome = await attempt(s, try s.makeRequest(method, path), body: bytes.map { Body($0) }, bound: Self.promptBound)
                if resending {
                    #expect(outcome.response?.data == Self.patternBody(size: 65536, seed: 3), "\(method): \(outcome.summary)")
                    // The body the server read on the new connection is the whole body, from its start.
                    let digest = outcome.response?.head.headerFields[HTTPField.Name("x-request-body-sha256")!]
                    #expect(try await digest == sha256(bytes ?? Data()), "\(method): the body sent again is not the body")
                    resends += 1
                } else {
                    #expect(outcome.code == .connectionLost, "\(method), resend off: \(outcome.summary)")
                }
                #expect(t.connectionLossResends == resends, "\(method), resend \(resending)")
            }
            // Part of the answer came: the server took the request.
            try await openConnection()
            let partial = await attempt(s, try s.makeRequest(.get, "goaway?last=below&after=1000&once=\(run)-\(resending)-partial"), bound: Self.promptBound)
            #expect(partial.response == nil && !partial.hung, "partial: \(partial.summary)")
            #expect(t.connectionLossResends == resends, "partial, resend \(resending)")
            await t.shutdown()
        }
        // Refused on the connection opened for the call (a reloading server refuses those too): sent again as well.
        // Its observers see one exchange.
        let fresh = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let recorder = RecordingEventListener()
        let s = session(Servers.tlsChaos, transport: fresh) {
            $0.timeouts = Self.prompt
            $0.eventListener = recorder
        }
        let outcome = await attempt(s, try s.makeRequest(.get, "goaway?last=below&after=-1&seed=4&once=\(run)-fresh"), bound: Self.promptBound)
        #expect(outcome.response?.data == Self.patternBody(size: 65536, seed: 4), "fresh: \(outcome.summary)")
        #expect(fresh.connectionLossResends == 1)
        #expect(recorder.names(excluding: RecordingEventListener.progressKinds) == [
            "taskCreated", "taskResumed", "requestSent", "responseHeadReceived", "metricsCollected", "taskCompleted",
        ])
        await fresh.shutdown()
    }

    /// A head or trailers of 2 MB in one HTTP/2 header block (HEADERS and CONTINUATION frames), with a name per
    /// field or one field repeated (which HPACK sends as an index of a byte or two, each decoded to 100 bytes),
    /// or 20,000 `103` heads before the final one: libcurl refuses the block past what it keeps, and the call
    /// fails as `.malformedResponse` within moments. A head, trailers and `103` heads of 1 KB (the controls)
    /// arrive with their body.
    @Test func largeHeaderBlocksAreMalformed() async throws {
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, _ in
            for part in ["head", "trailers", "hints"] {
                for same in part == "hints" ? [0] : [0, 1] {
                    let outcome = try await expect(s, "fields?part=\(part)&bytes=2000000&same=\(same)", code: .malformedResponse)
                    #expect((outcome.head?.status == .ok) == (part == "trailers"), "\(part) same=\(same): \(outcome.summary)")
                }
                let control = await attempt(s, try s.makeRequest(.get, "fields?part=\(part)&bytes=1000"), bound: Self.promptBound)
                #expect(control.response?.data == Data("hello".utf8), "\(part): \(control.summary)")
            }
        }
    }

    /// A header block that goes on in more CONTINUATION frames than nghttp2 takes (8, since the fix for
    /// CVE-2024-28182): ten thousand empty ones, ten thousand of 1,000 bytes, or nine that end the block. The
    /// server is flooding the client, so the call fails `.malformedResponse` within moments and a retry policy
    /// does not send it again; it was `.connectionLost`, which `RetryPolicy` sent twice more. Blocks in eight
    /// frames, or three of 1,000 bytes (the controls), arrive with their body.
    @Test func aFloodOfContinuationFramesIsMalformed() async throws {
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, _ in
            for query in ["frames=10000", "frames=10000&fill=1000", "frames=9&end=1"] {
                _ = try await expect(s, "continuations?\(query)", code: .malformedResponse)
            }
            for query in ["frames=8&end=1", "frames=3&fill=1000&end=1"] {
                let control = await attempt(s, try s.makeRequest(.get, "continuations?\(query)"), bound: Self.promptBound)
                #expect(control.response?.data == Data("hello".utf8), "\(query): \(control.summary)")
            }
        }
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let attempts = Box(0)
        let s = session(Servers.tlsChaos, transport: t) {
            $0.retrier = ConnectionTests.CountingRetrier(attempts: attempts, policy: RetryPolicy(exponentialBackoffScale: 0))
        }
        let outcome = await attempt(s, try s.makeRequest(.get, "continuations"), bound: Self.promptBound)
        #expect(outcome.code == .malformedResponse, "\(outcome.summary)")
        #expect(attempts.value == 1, "the flood was retried")
        await t.shutdown()
    }

    /// A frame that breaks HTTP/2 for the whole connection, 1,000 bytes into a body: DATA on stream 0, a window
    /// past 2³¹ − 1, a DATA frame over the 16 KiB the client allows. nghttp2 ends the connection with a GOAWAY
    /// of its own. With a `Content-Length` the call fails `.truncatedBody`, as curl fails (18). Without one,
    /// libcurl 7.88 takes the session's end for the stream's and the call succeeds with the 1,000 bytes, as curl
    /// exits 0 with them, whether the server then closes or holds the connection: a known issue (nothing libcurl
    /// reports tells such an end from END_STREAM), which flags when a libcurl that fails the stream replaces
    /// 7.88. Either way the call ends at once and the bytes it has are the body's first.
    @Test func aFrameBreakingTheConnectionMidBodyEndsTheCall() async throws {
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, _ in
            for kind in ["data-on-zero", "window-overflow", "oversized"] {
                _ = try await expect(s, "bad-frame?kind=\(kind)&length=1", code: .truncatedBody)
                for then in ["close", "hold"] {
                    let path = "bad-frame?kind=\(kind)&then=\(then)&seed=7"
                    let outcome = await attempt(s, try s.makeRequest(.get, path), bound: Self.promptBound)
                    #expect(!outcome.hung && outcome.elapsed < Self.promptBound, "\(path): \(outcome.summary)")
                    if let data = outcome.response?.data {
                        #expect(data == Self.patternBody(size: 1000, seed: 7), "\(path): \(outcome.summary)")
                    }
                    withKnownIssue("libcurl 7.88 ends a stream cleanly when nghttp2 ends its connection") {
                        #expect(outcome.response == nil, "\(path): \(outcome.summary)")
                    }
                }
            }
        }
    }

    /// An HTTP/1 body that ends with its connection (neither `Content-Length` nor chunked coding, or `Transfer-Encoding:
    /// gzip` alone), over TLS, is whole only if the server's close_notify came before the connection's end (RFC 9112
    /// §9.8): a TCP FIN carries no authentication, so anyone on the path can end such a body early. Ended by a bare FIN
    /// the call fails `.truncatedBody`, its head kept; by an RST, `.connectionLost`. curl 7.88 exits 0 after the FIN
    /// with whatever came, and Courier succeeded the same way. A body framed by its length or by chunks, a 204, and the
    /// answer to a HEAD need no close_notify: they arrive whole after a bare FIN. Each case comes with a head of its own
    /// (`nonce`), which the transfer reads, and with the head before it (no `nonce`), which a head that repeats the loop's
    /// template takes whole: both paths decide. With `requiresCloseNotify` off, a bare FIN ends the body, as curl takes it.
    @Test func aBodyEndingWithItsConnectionIsWholeOnlyAfterCloseNotify() async throws {
        let t = try transport {
            $0.certificateAuthorityFile = Servers.caFile
            $0.httpVersion = .http1_1
        }
        try await chaosBatch(Servers.chaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { _, _ in
            let s = session(Servers.tlsChaos, transport: t) { $0.timeouts = Self.prompt }
            var nonce = 0
            for version in ["1.0", "1.1"] {
                for framing in ["close", "te-gzip"] {
                    for size in [0, 100_000] {
                        let path = "tls-close?framing=\(framing)&size=\(size)&seed=3&version=\(version)"
                        for own in [true, false] {
                            nonce += 1
                            let variant = own ? path + "&nonce=\(nonce)" : path
                            let whole = await attempt(s, try s.makeRequest(.get, variant + "&end=notify"), bound: Self.promptBound)
                            #expect(whole.response?.data == Self.patternBody(size: size, seed: 3), "\(variant), close_notify: \(whole.summary)")
                            let cut = try await expect(s, (own ? path + "&nonce=\(nonce)b" : path) + "&end=bare", code: .truncatedBody)
                            #expect(cut.head?.status == .ok, "\(variant), FIN: \(cut.summary)")
                            _ = try await expect(s, variant + "&end=reset", code: .connectionLost)
                        }
                    }
                }
            }
            for framing in ["length", "chunked", "no-content"] {
                let path = "tls-close?framing=\(framing)&size=100000&seed=5&end=bare"
                let outcome = await attempt(s, try s.makeRequest(.get, path), bound: Self.promptBound)
                let expected = framing == "no-content" ? Data() : Self.patternBody(size: 100_000, seed: 5)
                #expect(outcome.response?.data == expected, "\(path): \(outcome.summary)")
            }
            let head = await attempt(s, try s.makeRequest(.head, "tls-close?framing=close&end=bare"), bound: Self.promptBound)
            #expect(head.response?.status == .ok && head.response?.data.isEmpty == true, "HEAD: \(head.summary)")
        }
        await t.shutdown()
        let lenient = try transport {
            $0.certificateAuthorityFile = Servers.caFile
            $0.httpVersion = .http1_1
            $0.requiresCloseNotify = false
        }
        let s = session(Servers.tlsChaos, transport: lenient) { $0.timeouts = Self.prompt }
        let taken = await attempt(s, try s.makeRequest(.get, "tls-close?size=1000&seed=4&end=bare"), bound: Self.promptBound)
        #expect(taken.response?.data == Self.patternBody(size: 1000, seed: 4), "requiresCloseNotify off: \(taken.summary)")
        await lenient.shutdown()
    }

    /// A TLS listener that answers the ClientHello with a fatal alert (handshake_failure, internal_error),
    /// or closes (FIN or RST) after reading it, or after half a ServerHello: `.tlsFailure`. One that reads the
    /// ClientHello and says nothing: `.timedOut` at the connect timeout, which covers the handshake.
    @Test func brokenHandshakesFailTyped() async throws {
        let faults: [(String, TransportError.Code)] = [
            ("alert-handshake-failure", .tlsFailure),
            ("alert-internal-error", .tlsFailure),
            ("close-after-hello", .tlsFailure),
            ("reset-after-hello", .tlsFailure),
            ("partial-server-hello", .tlsFailure),
            ("stall-after-hello", .timedOut),
        ]
        // The listeners' ports, from the TLS chaos server (each listener is made on the first ask).
        var ports: [String: Int] = [:]
        let lookup = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let directory = session(Servers.tlsChaos, transport: lookup)
        for (fault, _) in faults {
            let text = try await directory.get("handshake-fault?fault=\(fault)").response.text
            guard let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                Issue.record("the TLS chaos server named no port for \(fault): \(text)")
                return
            }
            ports[fault] = port
        }
        await lookup.shutdown()   // its connection is not the batch's to count
        let connect = Duration.seconds(1)
        let timeouts = Timeouts(connect: connect, request: .seconds(10))
        try await chaosBatch(Servers.tlsChaos, timeouts: timeouts, remotePorts: Self.tlsChaosPorts.union(ports.values)) { s, _ in
            for (fault, expected) in faults {
                let port = try #require(ports[fault])
                let outcome = try await expect(s, "https://127.0.0.1:\(port)/x", code: expected, bound: chaosBound(.seconds(10)))
                if expected == .timedOut {
                    #expect(outcome.elapsed >= connect * 0.9 && outcome.elapsed < chaosBound(connect), "\(fault): \(outcome.summary)")
                }
            }
        }
    }

    /// An upload answered at its head, before its body (a server refusing it with 413): the server then resets the
    /// stream with NO_ERROR (RFC 9113 §8.1's way to stop the client sending), keeps reading the body, or stops
    /// reading it, so that flow control holds the rest of it for good. Whichever, the answer is the call's
    /// response, as `curl` 7.88 reports it in each case, and the call ends within its bound; for a body from
    /// memory, from a file, and from a stream of unknown length (sent as DATA frames without a length).
    @Test func anAnswerBeforeTheUploadEndsIsTheResponse() async throws {
        let size = 16 << 20
        let file = try temporaryDirectory().appending(path: "upload.bin")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try Data(count: size).write(to: file)
        let bodies: [(String, @Sendable () throws -> Body)] = [
            ("memory", { Body(Data(count: size)) }),
            ("file", { try Body(contentsOfFileAt: file.path(percentEncoded: false)) }),
            ("stream", {
                let chunk = ArraySlice([UInt8](repeating: 0x61, count: 256 << 10))
                let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                    for _ in 0..<(size / chunk.count) { continuation.yield(chunk) }
                    continuation.finish()
                }
                return Body(chunks, length: .unknown, iterationBehavior: .single)
            }),
        ]
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, _ in
            for then in ["reset", "read", "stop-reading"] {
                for (kind, body) in bodies {
                    let request = try s.makeRequest(.post, "early-answer?status=413&then=\(then)")
                    let outcome = await attempt(s, request, body: try body(), bound: Self.promptBound)
                    #expect(!outcome.hung && outcome.elapsed < Self.promptBound, "\(then), \(kind): \(outcome.summary)")
                    #expect(outcome.response?.status.code == 413, "\(then), \(kind): \(outcome.summary)")
                    #expect(outcome.response.map { String(decoding: $0.data, as: UTF8.self) } == "answered before the body\n", "\(then), \(kind)")
                }
            }
        }
    }
}
