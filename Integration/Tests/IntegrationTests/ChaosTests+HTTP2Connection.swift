import CourierCore
@_spi(Testing) import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// What an HTTP/2 server does to the whole connection rather than to one stream: floods of frames the client must
/// acknowledge or ignore (RFC 9113 section 10.5; the 2019 HTTP/2 advisories, sent the other way), frames a client
/// must take as a connection error, and a limit on concurrent streams lowered to what is in use, against the TLS
/// chaos server's `/flood` and `/max-streams`.
extension ChaosTests {
    /// A flood the client can keep up with is answered: 100,000 PINGs with their acknowledgements read, 500
    /// SETTINGS in one TLS record, 200,000 PRIORITY frames for streams nobody opened, 200,000 empty DATA frames on
    /// the stream; each arrives as "hello", in moments. One it cannot is refused by
    /// nghttp2's bound of 1,000 acknowledgements waiting to be sent: 100,000 SETTINGS, 1,820 to a record, fail the
    /// call `.malformedResponse` (as the CONTINUATION flood does), and two million PINGs from a server that reads
    /// nothing fail it `.sendFailed`, which libcurl 7.88 reports without a word of the flood (curl 7.88: 56 and 55).
    /// Neither is sent again by `RetryPolicy`. A PUSH_PROMISE, which a client that disabled push must take as a
    /// connection error, and an RST_STREAM for a stream nobody opened, end the connection before the head; libcurl
    /// reports that as an empty reply (52, as curl does), which is `.connectionLost`, as a server that closed
    /// before answering, or, about one run in five here, as a send that failed with no message (55), when it was
    /// still writing on the connection nghttp2 ended: `.sendFailed`.
    @Test func floodsOfControlFramesAreAnsweredOrRefusedTyped() async throws {
        let answered = ["kind=ping&count=100000", "kind=settings&count=500", "kind=priority&count=200000", "kind=empty-data&count=200000"]
        let refused: [(query: String, codes: Set<TransportError.Code>)] = [
            ("kind=settings&count=100000", [.malformedResponse]),
            ("kind=ping&count=2000000&read=0", [.sendFailed]),
            ("kind=push", [.connectionLost, .sendFailed]),
            ("kind=reset-idle&count=1", [.connectionLost, .sendFailed]),
        ]
        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, batch in
            for query in answered {
                let outcome = await attempt(s, try s.makeRequest(.get, "flood?\(query)"), bound: Self.promptBound)
                #expect(outcome.response?.data == Data("hello".utf8), "\(query): \(outcome.summary)")
            }
            for (query, codes) in refused {
                let outcome = await attempt(s, try s.makeRequest(.get, "flood?\(query)"), bound: Self.promptBound)
                #expect(!outcome.hung && outcome.elapsed < Self.promptBound, "\(query): \(outcome.summary)")
                #expect(outcome.code.map(codes.contains) == true, "\(query): \(outcome.summary)")
                #expect(outcome.head == nil, "\(query): \(outcome.summary)")
            }
            // A flood nghttp2 refuses (libcurl's 16 with a message, 55 without one) is not a GOAWAY's refusal, nor a
            // send that met a kept HTTP/1 connection's close: the transport never sends it again itself.
            #expect(batch.transport.connectionLossResends == 0)
        }
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        for (query, _) in refused.prefix(2) {
            let attempts = Box(0)
            let s = session(Servers.tlsChaos, transport: t) {
                $0.retrier = ConnectionTests.CountingRetrier(attempts: attempts, policy: RetryPolicy(exponentialBackoffScale: 0))
            }
            let outcome = await attempt(s, try s.makeRequest(.get, "flood?\(query)"), bound: Self.promptBound)
            #expect(outcome.code != nil && attempts.value == 1, "\(query): \(attempts.value) attempts, \(outcome.summary)")
        }
        await t.shutdown()
    }

    /// A server that lowers `SETTINGS_MAX_CONCURRENT_STREAMS` on a connection the client keeps. To 1: eight calls at
    /// once arrive byte-exact (libcurl opens other connections rather than exceed the limit; the server holds the
    /// client to it). To 0, which RFC 9113 section 6.5.2 lets a server send for a short while: libcurl 7.88 still
    /// gives the idle connection to the next request, whose stream waits in nghttp2's queue, as curl 7.88 waits; it
    /// ends `.timedOut` at its request timeout, and one cancelled meanwhile ends cancelled. The call after them waits
    /// too, and goes as soon as the server raises the limit again, 5 s after it lowered it. That call failed before:
    /// nghttp2 had kept the ended requests' easy handles, which the loop had freed, and gave them to libcurl when it
    /// dropped the requests from its queue (a use after free; `CurlMultiLoop+QueuedRequests.swift`). The two handles
    /// are kept until the head of that call comes.
    @Test func aServerThatLowersItsStreamLimitIsWaitedFor() async throws {
        // Its own transport: the connections libcurl opens beside the limited one stay in its pool until the shutdown.
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let one = session(Servers.tlsChaos, transport: t) { $0.timeouts = Self.prompt }
        let lowered = await attempt(one, try one.makeRequest(.get, "max-streams?value=1"), bound: Self.promptBound)
        #expect(lowered.response?.data == Data("hello".utf8), "value=1: \(lowered.summary)")
        let requests = try (0..<8).map { seed in (seed, try one.makeRequest(.get, "data?size=100000&seed=\(seed)")) }
        let outcomes = await withTaskGroup(of: (Int, ChaosOutcome).self) { group in
            for (seed, request) in requests {
                group.addTask { (seed, await attempt(one, request, bound: Self.promptBound)) }
            }
            return await group.reduce(into: [(Int, ChaosOutcome)]()) { $0.append($1) }
        }
        for (seed, outcome) in outcomes {
            #expect(outcome.response?.data == Self.patternBody(size: 100_000, seed: seed), "seed \(seed): \(outcome.summary)")
        }
        await t.shutdown()

        try await chaosBatch(Servers.tlsChaos, timeouts: Self.prompt, remotePorts: Self.tlsChaosPorts) { s, batch in
            let waiting = batch.session(Timeouts(connect: .seconds(5), request: .seconds(1)))
            let closed = await attempt(waiting, try waiting.makeRequest(.get, "max-streams?value=0&for=5000"), bound: Self.promptBound)
            #expect(closed.response?.data == Data("hello".utf8), "value=0: \(closed.summary)")
            let timedOut = await attempt(waiting, try waiting.makeRequest(.get, "health"), bound: chaosBound(.seconds(1)))
            #expect(timedOut.code == .timedOut, "while no stream may open: \(timedOut.summary)")
            let request = try s.makeRequest(.get, "health")
            let given = await batch.transport.connectionsGiven()
            let cancelled = Task { try await s.data(for: request) }
            // Cancelled once libcurl has given it the connection, where its stream waits.
            while await batch.transport.connectionsGiven() == given { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(50))
            cancelled.cancel()
            let ending = await cancelled.result
            #expect((try? ending.get()) == nil, "a call cancelled while no stream may open")
            #expect(await batch.transport.parkedHandleCount() == 2, "the two ended calls' handles are kept")
            let reopened = await attempt(s, try s.makeRequest(.get, "health"), bound: Self.promptBound)
            #expect(reopened.response?.status == .ok, "once the limit is raised again: \(reopened.summary)")
            #expect(await batch.transport.parkedHandleCount() == 0, "an answer on the connection frees the handles kept before it")
        }
    }

    /// The handles a connection keeps go with it: the server ends a connection whose limit is 0 (a GOAWAY, 3 s after
    /// it lowered the limit) while a timed-out call's handle is kept for it; the next call finds the connection gone,
    /// libcurl closes it, and the handle is freed. A handle still kept when the transport shuts down is freed once
    /// libcurl has closed every connection. Only the keeping is checked here: the late callback that a freed handle
    /// would take comes from libcurl, which no sanitizer of this build watches.
    @Test func theHandlesAConnectionKeepsGoWithIt() async throws {
        let t = try transport { $0.certificateAuthorityFile = Servers.caFile }
        let s = session(Servers.tlsChaos, transport: t) { $0.timeouts = Self.prompt }
        let quick = session(Servers.tlsChaos, transport: t) { $0.timeouts = Timeouts(connect: .seconds(5), request: .seconds(1)) }
        let start = ContinuousClock.now
        let lowered = await attempt(s, try s.makeRequest(.get, "max-streams?value=0&close=3000"), bound: Self.promptBound)
        #expect(lowered.response?.data == Data("hello".utf8), "\(lowered.summary)")
        let timedOut = await attempt(quick, try quick.makeRequest(.get, "health"), bound: chaosBound(.seconds(1)))
        #expect(timedOut.code == .timedOut, "\(timedOut.summary)")
        #expect(await t.parkedHandleCount() == 1)
        // Well after the server's GOAWAY and close.
        try await Task.sleep(until: start + .seconds(5), clock: .continuous)
        let next = await attempt(s, try s.makeRequest(.get, "health"), bound: Self.promptBound)
        #expect(next.response?.status == .ok, "after the connection closed: \(next.summary)")
        #expect(await t.parkedHandleCount() == 0, "the closed connection's handle is freed")

        let again = await attempt(s, try s.makeRequest(.get, "max-streams?value=0"), bound: Self.promptBound)
        #expect(again.response?.data == Data("hello".utf8), "\(again.summary)")
        let keptAtTheEnd = await attempt(quick, try quick.makeRequest(.get, "health"), bound: chaosBound(.seconds(1)))
        #expect(keptAtTheEnd.code == .timedOut, "\(keptAtTheEnd.summary)")
        #expect(await t.parkedHandleCount() == 1)
        await t.shutdown()
    }
}
