import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Cleartext HTTP/1.1 calls beyond a host's connection limit wait in the transport for a free connection
/// (`HostAdmission`): they are not sent until one frees, the wait counts against the request timeout, a
/// waiting call that is cancelled or whose timeout passes fails at once with its own error, and the calls
/// holding the connections are not disturbed. Against the fault server, whose `/never` holds a connection.
@Suite("Connection admission")
struct ConnectionAdmissionTests {
    /// Two connections per host, both held by calls to `/never` (until their tasks are cancelled).
    private struct HeldHost {
        let curl: CurlTransport
        let recorder = RecordingEventListener()
        let calls: Session
        let holders: [Task<Void, Never>]

        init() async throws {
            let curl = try transport { $0.maximumConnectionsPerHost = 2 }
            let recorder = recorder
            let calls = session(Servers.fault, transport: curl) {
                $0.eventListener = recorder
                $0.timeouts = Timeouts(request: .seconds(60))
            }
            self.curl = curl
            self.calls = calls
            holders = (0..<2).map { _ in Task { _ = try? await calls.get("never").response } }
            // Both holders are in libcurl's hands, on the two connections, before any test call is made.
            let sent = await eventually { recorder.events(of: .requestSent).count == 2 }
            #expect(sent, "the two calls to /never were not sent")
        }

        func release() async {
            for holder in holders { holder.cancel() }
            for holder in holders { await holder.value }
            await curl.shutdown()
        }
    }

    @Test func aWaitingCallFailsAtItsRequestTimeout() async throws {
        let host = try await HeldHost()
        let timeouts = Timeouts(request: .milliseconds(500))
        let (error, elapsed) = await timed { () -> (any Error)? in
            do {
                _ = try await host.calls.get("get", options: RequestOptions(timeouts: timeouts)).response
                return nil
            } catch {
                return error
            }
        }
        #expect(transportCode(try #require(error)) == .timedOut)
        let message = ((error as? CourierError)?.underlyingError as? TransportError)?.message ?? ""
        #expect(message.contains("no connection") && message.contains("maximumConnectionsPerHost"), "\(message)")
        #expect(elapsed >= .milliseconds(450) && elapsed < TimeBounds.limit(timeouts.request!))
        #expect(host.recorder.events(of: .requestSent).count == 2, "the waiting call was sent")
        #expect(host.recorder.events(of: .taskFailed).count == 1, "a holder ended with the waiting call")
        await host.release()
    }

    @Test func aCancelledWaitingCallEndsAtOnceAndFreesNothing() async throws {
        let host = try await HeldHost()
        let waiting = Task { () -> (any Error)? in
            do {
                _ = try await host.calls.get("get").response
                return nil
            } catch {
                return error
            }
        }
        // The call reaches the loop and waits there; nothing says when, so the test gives it time. Cancelled
        // earlier, it would end the same way, through the path for calls not yet added.
        try await Task.sleep(for: .milliseconds(200))
        let (error, elapsed) = await timed { () -> (any Error)? in
            waiting.cancel()
            return await waiting.value
        }
        #expect((error as? CourierError)?.isCancellation == true, "\(String(describing: error))")
        #expect(elapsed < TimeBounds.prompt)
        #expect(host.recorder.events(of: .requestSent).count == 2, "the cancelled call was sent")

        // The two connections are still held: a new call waits too, and fails at its own timeout, in the line.
        let timeouts = Timeouts(request: .milliseconds(300))
        let (later, waited) = await timed { () -> (any Error)? in
            do {
                _ = try await host.calls.get("get", options: RequestOptions(timeouts: timeouts)).response
                return nil
            } catch {
                return error
            }
        }
        let message = ((later as? CourierError)?.underlyingError as? TransportError)?.message ?? ""
        #expect(message.contains("no connection"), "\(String(describing: later))")
        #expect(waited < TimeBounds.limit(timeouts.request!))
        #expect(host.recorder.events(of: .taskFailed).count == 2, "a holder ended: the cancelled call and the later one only")
        await host.release()
    }

    /// Calls that wait are sent as connections free, never more at once than the limit: 8 answers that each
    /// take 100 ms, 2 at a time, take at least 400 ms (3 at a time would take 300).
    @Test func waitingCallsGoOutAsConnectionsFree() async throws {
        let t = try transport { $0.maximumConnectionsPerHost = 2 }
        let s = session(Servers.fault, transport: t) { $0.timeouts = Timeouts(request: .seconds(60)) }
        let (responses, elapsed) = try await timed {
            try await withThrowingTaskGroup(of: DataResponse.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await s.get("slow-headers?delay_ms=100").response }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(responses.count == 8)
        #expect(responses.allSatisfy { $0.head.status == .ok })
        #expect(elapsed >= .milliseconds(390), "8 calls of 100 ms at 2 per host took \(elapsed)")
        // What this bound catches is a waiting call left for a timer (the 60 s request timeout). Bounded by the 400 ms
        // of answers alone, it failed under ThreadSanitizer with a CPU hog beside it (5.18 s against 5 s, a clean-clone
        // run at `ecd346d`): eight exchanges cost more than their answers' time there. A second of client work on top.
        #expect(elapsed < TimeBounds.limit(.milliseconds(1_400)))
        await t.shutdown()
    }

    /// The time a call waited counts against its request timeout once it is sent: waiting for a holder that
    /// answers after 2.9 s, then a 2.5 s answer, is over a 3 s limit, though each part alone is within it (so
    /// the call is sent with 100 ms left, and fails in libcurl). The wait is what is left of the holder's 2.9 s
    /// when the test's call starts: a test delayed 400 ms on a busy machine made the first version's 400 ms
    /// wait short enough to pass (a clean-clone run at `c4083f3`). Here the test may start its call up to
    /// 2.4 s late. One that started later than that (under AddressSanitizer beside a CPU hog and every other suite,
    /// a clean-clone run at `7693774`) waited under 0.5 s and is answered within the limit, in under 3 s all told:
    /// that proves nothing either way, and the attempt is made again, three times at most. An answer after 3 s or
    /// more would be the defect: the wait not counted.
    @Test func theWaitCountsAgainstTheRequestTimeout() async throws {
        let timeouts = Timeouts(request: .milliseconds(3_000))
        for attempt in 1...3 {
            let (t, s, holder) = try await oneConnectionHeld(forMilliseconds: 2900)
            let (error, elapsed) = await timed { () -> (any Error)? in
                do {
                    _ = try await s.get("slow-headers?delay_ms=2500", options: RequestOptions(timeouts: timeouts)).response
                    return nil
                } catch {
                    return error
                }
            }
            if error == nil, elapsed < timeouts.request!, attempt < 3 {
                _ = try? await holder.value
                await t.shutdown()
                continue
            }
            #expect(transportCode(try #require(error)) == .timedOut)
            #expect(elapsed >= .milliseconds(2_950) && elapsed < TimeBounds.limit(timeouts.request!))
            #expect(try await holder.value.head.status == .ok)
            await t.shutdown()
            return
        }
    }

    /// A deadline is charged for the wait once: 700 ms in the line, then a 300 ms answer, fit a 1.6 s deadline.
    /// (Taking the wait off a limit already shortened to what was left of the deadline left 200 ms for the
    /// answer.)
    @Test func aDeadlineCountsTheWaitOnce() async throws {
        let (t, s, holder) = try await oneConnectionHeld(forMilliseconds: 700)
        let response = try await s.get("slow-headers?delay_ms=300", options: RequestOptions(deadline: .milliseconds(1_600))).response
        #expect(response.head.status == .ok)
        #expect(try await holder.value.head.status == .ok)
        await t.shutdown()
    }

    /// A transport with one connection per host, a session on the fault server, and a call holding that
    /// connection for `milliseconds` (its answer's delay), already handed to libcurl.
    private func oneConnectionHeld(
        forMilliseconds milliseconds: Int
    ) async throws -> (CurlTransport, Session, Task<DataResponse, any Error>) {
        let t = try transport { $0.maximumConnectionsPerHost = 1 }
        let recorder = RecordingEventListener()
        let s = session(Servers.fault, transport: t) {
            $0.eventListener = recorder
            $0.timeouts = Timeouts(request: .seconds(60))
        }
        let holder = Task { try await s.get("slow-headers?delay_ms=\(milliseconds)").response }
        let holding = await eventually { recorder.events(of: .requestSent).count == 1 }
        #expect(holding, "the holder was not sent")
        return (t, s, holder)
    }
}
