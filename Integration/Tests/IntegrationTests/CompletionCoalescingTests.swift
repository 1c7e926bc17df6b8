import CourierCore
@_spi(Testing) import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The curl thread holds a finished call for up to `completionCoalescing` while at least four other transfers are
/// on the wire, so that callers finishing close together are resumed together (`CompletionCoalescing`). These tests
/// keep five calls on the wire to the fault server (answers after 30 s) and make fast calls to nginx beside them,
/// with windows long enough that a call held by mistake shows: what must come promptly is bounded well below the
/// window and below the slow answers.
@Suite("Curl completion coalescing", .timeLimit(.minutes(2)))
struct CompletionCoalescingTests {
    /// The loop's threshold (`CompletionCoalescing.minimumInFlight`) and batch (`.batch`), which are internal.
    private static let minimumInFlight = 4
    private static let batch = 8

    /// `count` calls that the fault server answers after 30 s, returned once the loop has them all on the wire. (A
    /// fixed second was not always enough: beside a CPU hog, under AddressSanitizer and the other suites, a call
    /// beside them was once not held because they had not reached the loop yet.)
    private func slowCalls(on t: CurlTransport, count: Int) async -> [Task<Void, Never>] {
        let s = session(Servers.fault, transport: t) { $0.timeouts = Timeouts(request: .seconds(120)) }
        let tasks = (0..<count).map { _ in
            Task { _ = try? await s.get("slow-headers?delay_ms=30000").response }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(20)
        var onTheWire = 0
        while clock.now < deadline {
            onTheWire = await t.transfersThatMayEndSoon()
            if onTheWire >= count { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(onTheWire == count, "\(onTheWire) of \(count) slow calls on the wire after 20 s")
        return tasks
    }

    private func end(_ t: CurlTransport, _ slow: [Task<Void, Never>]) async {
        await t.shutdown()
        for task in slow { await task.value }
    }

    /// A transport holding for `window`, `inFlight` slow calls on the wire, and a session with a request for nginx's
    /// small JSON document beside them.
    private func scene(
        window: Duration = .seconds(60), inFlight: Int = CompletionCoalescingTests.minimumInFlight + 1
    ) async throws -> (transport: CurlTransport, slow: [Task<Void, Never>], fast: Session, request: HTTPRequest) {
        let t = try transport { $0.completionCoalescing = window }
        let slow = await slowCalls(on: t, count: inFlight)
        let fast = session(Servers.nginx, transport: t)
        return (t, slow, fast, try fast.makeRequest(.get, "json"))
    }

    @Test func aFinishedCallIsHeldForTheWindowWhileOthersAreInFlight() async throws {
        let window: Duration = .milliseconds(400)
        let (t, slow, fast, request) = try await scene(window: window)
        let (response, elapsed) = try await timed { try await fast.data(for: request) }
        #expect(response.status == .ok)
        #expect(response.data.count > 500)
        // Held from when it finished until the window's end: never less than the window. The slow answers are 30 s
        // away, so a call that waited for them would miss the upper bound by far.
        #expect(elapsed >= window, "a finished call with five others in flight was resumed after \(elapsed)")
        #expect(elapsed < TimeBounds.limit(window))
        await end(t, slow)
    }

    @Test func withTooFewInFlightNothingIsHeld() async throws {
        let (t, slow, fast, request) = try await scene(inFlight: Self.minimumInFlight - 1)
        let (response, elapsed) = try await timed { try await fast.data(for: request) }
        #expect(response.status == .ok)
        #expect(elapsed < TimeBounds.limit(.seconds(1)), "held for \(elapsed) with three others in flight")
        await end(t, slow)
    }

    @Test func aFullBatchIsResumedAtOnce() async throws {
        let (t, slow, fast, request) = try await scene()
        let (statuses, elapsed) = try await timed {
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<Self.batch {
                    group.addTask { try await fast.data(for: request).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses == Array(repeating: .ok, count: Self.batch))
        #expect(elapsed < TimeBounds.limit(.seconds(1)), "eight finished calls waited \(elapsed) for a 60 s window")
        await end(t, slow)
    }

    /// Resuming a caller that runs on the curl thread wakes no thread: holding it would only delay it.
    @Test func callersOnTheCurlThreadAreNotHeld() async throws {
        let (t, slow, fast, request) = try await scene()
        let (response, elapsed) = try await timed {
            try await withTaskExecutorPreference(t.executor) { try await fast.data(for: request) }
        }
        #expect(response.status == .ok)
        #expect(elapsed < TimeBounds.limit(.seconds(1)), "a caller on the curl thread was held for \(elapsed)")
        await end(t, slow)
    }

    /// A held call had its answer before the cancellation came: the cancellation resumes it at once, with that
    /// answer or the cancellation, instead of leaving it to the window.
    @Test func cancellingAHeldCallResumesItAtOnce() async throws {
        let (t, slow, fast, request) = try await scene()
        let ended = Box(false)
        let call = Task { () -> Result<DataResponse, CourierError> in
            defer { ended.value = true }
            do throws(CourierError) {
                return .success(try await fast.data(for: request))
            } catch {
                return .failure(error)
            }
        }
        try await Task.sleep(for: .seconds(1))
        #expect(!ended.value, "the call was not held: this test shows nothing")
        call.cancel()
        // Awaited only once it ended: a held call left held would hang the suite instead of failing it.
        let endedPromptly = await eventually(timeout: TimeBounds.prompt) { ended.value }
        #expect(endedPromptly, "a cancelled held call did not end within \(TimeBounds.prompt)")
        guard endedPromptly else {
            await t.shutdown()
            return
        }
        switch await call.value {
        case .success(let response): #expect(response.status == .ok)
        case .failure(let error): #expect(error.isCancellation, "\(error)")
        }
        await end(t, slow)
    }

    /// A call still on the wire that is cancelled ends with the cancellation at once: a failure is never held.
    @Test func aCancelledCallOnTheWireIsNotHeld() async throws {
        let t = try transport { $0.completionCoalescing = .seconds(60) }
        let slow = await slowCalls(on: t, count: Self.minimumInFlight + 1)
        let s = session(Servers.fault, transport: t)
        let ended = Box(false)
        let call = Task { () -> Result<DataResponse, CourierError> in
            defer { ended.value = true }
            do throws(CourierError) {
                return .success(try await s.get("slow-headers?delay_ms=30000").response)
            } catch {
                return .failure(error)
            }
        }
        try await Task.sleep(for: .seconds(1))
        call.cancel()
        let endedPromptly = await eventually(timeout: TimeBounds.prompt) { ended.value }
        #expect(endedPromptly, "a call cancelled on the wire did not end within \(TimeBounds.prompt)")
        if endedPromptly, case .failure(let error) = await call.value {
            #expect(error.isCancellation, "\(error)")
        } else if endedPromptly {
            Issue.record("a call the server answers after 30 s succeeded")
        }
        await end(t, slow)
    }

    /// Streams whose heads were handed over, with much of their bodies left, may stay open for a long time: they are
    /// not answers about to come, so a call beside them is not held.
    @Test func openStreamsDoNotCountAsCallsInFlight() async throws {
        let t = try transport { $0.completionCoalescing = .seconds(60) }
        let streaming = session(Servers.fault, transport: t) { $0.timeouts = Timeouts(request: .seconds(120)) }
        var streams: [Response] = []
        for _ in 0...Self.minimumInFlight {
            // A head announcing 10 MB, then a byte every 100 ms: open until the transport shuts down.
            let request = try streaming.makeRequest(.get, "drip?bytes=10000000&interval_ms=100")
            streams.append(try await streaming.send(request))
        }
        let fast = session(Servers.nginx, transport: t)
        let request = try fast.makeRequest(.get, "json")
        let (response, elapsed) = try await timed { try await fast.data(for: request) }
        #expect(response.status == .ok)
        #expect(elapsed < TimeBounds.limit(.seconds(1)), "a call beside five open streams was held for \(elapsed)")
        withExtendedLifetime(streams) {}
        await t.shutdown()
    }

    /// A shutdown resumes the held calls with the answers they had; it does not leave them waiting.
    @Test func aShutdownResumesHeldCalls() async throws {
        let (t, slow, fast, request) = try await scene()
        let ended = Box(false)
        let call = Task { () -> HTTPResponse.Status in
            defer { ended.value = true }
            return try await fast.data(for: request).status
        }
        try await Task.sleep(for: .seconds(1))
        #expect(!ended.value, "the call was not held: this test shows nothing")
        await t.shutdown()
        // Awaited only once it ended: a held call left held would hang the suite instead of failing it.
        let endedPromptly = await eventually(timeout: TimeBounds.prompt) { ended.value }
        #expect(endedPromptly, "a held call did not end within \(TimeBounds.prompt) of the shutdown")
        guard endedPromptly else { return }
        #expect(try await call.value == .ok, "the held call had its answer before the shutdown")
        for task in slow { await task.value }
    }
}
