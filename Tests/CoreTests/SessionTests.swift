import CourierCore
import CourierTesting
import Dispatch
import Foundation
import HTTPTypes
import Testing

@Suite("Session")
struct SessionTests {
    func session(_ transport: MockTransport, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        var configuration = SessionConfiguration(baseURL: URL(string: "http://mock.test/api"))
        configure(&configuration)
        return Session(configuration: configuration, transport: transport)
    }

    @Test(arguments: [HTTPRequest.Method.get, .head, .post, .put, .patch, .delete])
    func conveniencesSendTheirMethodAndResume(method: HTTPRequest.Method) async throws {
        let transport = MockTransport(always: .text("ok"))
        let session = session(transport)
        let task: DataTask
        switch method {
        case .get: task = try session.get("items")
        case .head: task = try session.head("items")
        case .post: task = try session.post("items")
        case .put: task = try session.put("items")
        case .patch: task = try session.patch("items")
        default: task = try session.delete("items")
        }
        let response = try await task.response
        #expect(response.status == .ok)
        #expect(transport.requests.map(\.method) == [method])
        #expect(transport.requests[0].path == "/api/items")
    }

    @Test func callHeadersOverrideSessionHeadersByName() async throws {
        let transport = MockTransport(always: .status(.ok))
        let foo = HTTPField.Name("X-Foo")!, bar = HTTPField.Name("X-Bar")!
        let session = session(transport) { $0.headers = [foo: "foo value", bar: "bar value"] }
        _ = try await session.get("h", headers: [foo: "request value"]).response
        let sent = transport.requests[0].head.headerFields
        #expect(sent[values: foo] == ["request value"])
        #expect(sent[bar] == "bar value")
    }

    @Test func parametersWithoutASerializerAreATypedError() throws {
        let session = session(MockTransport(always: .status(.ok)))
        #expect {
            _ = try session.get("x", parameters: ["key": "value"])
        } throws: { error in
            let error = error as? CourierError
            let invalid = error?.underlyingError as? InvalidRequestError
            return error?.stage == .requestSerialization && invalid?.reason == .noRequestSerializer
        }
    }

    struct QueryAppender: RequestSerializer {
        func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
            guard case .dictionary(let values)? = parameters else { return SerializedRequest(request: request, body: nil) }
            var request = request
            let pairs = values.keys.sorted().map { key -> String in
                if case .string(let value) = values[key] { return "\(key)=\(value)" }
                return key
            }
            request.path = (request.path ?? "/") + "?" + pairs.joined(separator: "&")
            return SerializedRequest(request: request, body: nil)
        }
    }

    struct Refuse: RequestSerializer {
        struct Refused: Error {}
        func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest { throw Refused() }
    }

    @Test func requestSerializerShapesTheRequest() async throws {
        let transport = MockTransport(always: .status(.ok))
        let session = session(transport) { $0.requestSerializer = QueryAppender() }
        _ = try await session.get("q", parameters: ["b": "2", "a": "1"]).response
        #expect(transport.requests[0].path == "/api/q?a=1&b=2")
    }

    @Test func requestSerializerErrorAbortsBeforeSending() throws {
        let transport = MockTransport(always: .status(.ok))
        let session = session(transport) { $0.requestSerializer = Refuse() }
        #expect {
            _ = try session.post("x", parameters: ["a": 1])
        } throws: { error in
            let error = error as? CourierError
            return error?.stage == .requestSerialization && error?.underlyingError is Refuse.Refused
        }
        #expect(transport.requests.isEmpty)
    }

    struct Uppercased: ResponseSerializer {
        func serialize(_ response: DataResponse) throws -> String { response.text.uppercased() }
    }

    struct Failing: ResponseSerializer {
        struct Bad: Error {}
        func serialize(_ response: DataResponse) throws -> Int { throw Bad() }
    }

    @Test func responseSerializersProduceValuesAndCarryTheBodyOnError() async throws {
        let session = session(MockTransport(always: .text("hello"))) { $0.responseSerializer = Uppercased() }
        #expect(try await session.get("x").value(using: Uppercased()) == "HELLO")
        #expect(try await session.get("x").value() as? String == "HELLO")
        await #expect {
            _ = try await session.get("x").value(using: Failing())
        } throws: { error in
            let error = error as? CourierError
            return error?.stage == .responseSerialization && error?.responseBody == Data("hello".utf8)
                && error?.response?.status == .ok && error?.request?.path == "/api/x"
        }
        let raw = Session(transport: MockTransport(always: .text("raw")))
        #expect(try await raw.dataTask(with: mockRequest()).value() as? Data == Data("raw".utf8))
    }

    @Test func completionHandlersRunOnTheChosenQueueInsideTheGroup() async throws {
        let queue = DispatchQueue(label: "test.completion")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "mine")
        let group = DispatchGroup()
        let session = session(MockTransport(always: .text("x"))) { $0.completionQueue = queue }
        let seen = Box<[String?]>([])
        try session.get("a").onCompletion(group: group) { _ in seen.update { $0.append(DispatchQueue.getSpecific(key: key)) } }
        try session.get("b").onCompletion(queue: .global(), group: group) { _ in
            seen.update { $0.append(DispatchQueue.getSpecific(key: key) ?? "global") }
        }
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
        #expect(seen.value.sorted { ($0 ?? "") < ($1 ?? "") } == ["global", "mine"])
    }

    @Test func defaultCompletionQueueIsNotMain() async throws {
        let session = Session(transport: MockTransport(always: .text("x")))
        let onMain = Box<Bool?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            session.dataTask(with: mockRequest()).onCompletion { _ in
                onMain.value = Thread.isMainThread
                continuation.resume()
            }.resume()
        }
        #expect(onMain.value == false)
    }

    @Test func handlerAddedAfterCompletionStillRuns() async throws {
        let task = Session(transport: MockTransport(always: .text("x"))).dataTask(with: mockRequest())
        _ = try await task.response
        let status = await withCheckedContinuation { continuation in
            task.onCompletion { continuation.resume(returning: (try? $0.get())?.status) }
        }
        #expect(status == .ok)
    }

    @Test func invalidateCancelingTasksCancelsRunningOnes() async throws {
        let (session, recorder) = recordingSession(MockTransport(always: .text("slow", delay: .seconds(30))))
        let task = session.dataTask(with: mockRequest()).resume()
        let inline = Task { try await session.data(for: mockRequest()) }
        #expect(await eventually { recorder.events(of: .requestSent).count == 2 })
        session.invalidate(cancelingTasks: true)
        await #expect { _ = try await task.response } throws: { ($0 as? CourierError)?.isCancellation == true }
        await #expect { _ = try await inline.value } throws: { ($0 as? CourierError)?.isCancellation == true }
        #expect(session.tasks.isEmpty)
        await #expect {
            _ = try await session.data(for: mockRequest())
        } throws: { ($0 as? CourierError)?.underlyingError as? SessionError == .invalidated }
        await #expect {
            _ = try await session.dataTask(with: mockRequest()).response
        } throws: { ($0 as? CourierError)?.underlyingError as? SessionError == .invalidated }
    }

    @Test func invalidateWithoutCancelingLetsTasksFinish() async throws {
        let session = Session(transport: MockTransport(always: .text("done", delay: .milliseconds(100))))
        let task = session.dataTask(with: mockRequest()).resume()
        session.invalidate(cancelingTasks: false)
        #expect(try await task.response.text == "done")
        #expect(session.isInvalidated)
    }

    @Test func oversizedBodyFailsAtTheResponseBodyStage() async throws {
        let session = Session(
            configuration: SessionConfiguration(maximumResponseBodySize: 4),
            transport: MockTransport(always: .text("too long"))
        )
        await #expect {
            _ = try await session.data(for: mockRequest())
        } throws: { error in
            let error = error as? CourierError
            return error?.stage == .responseBody && error?.underlyingError as? BodyError == .tooLarge(limit: 4)
                && error?.response?.status == .ok
        }
    }

    @Test func timeoutIsReportedAsATimeout() async throws {
        let session = Session(
            configuration: SessionConfiguration(timeouts: Timeouts(request: .milliseconds(50))),
            transport: MockTransport(always: .text("late", delay: .seconds(300)))
        )
        let clock = ContinuousClock()
        let start = clock.now
        await #expect { _ = try await session.data(for: mockRequest()) } throws: { ($0 as? CourierError)?.isTimeout == true }
        // Before the answer would have come: the only bound the behaviour sets. A loaded machine under
        // ThreadSanitizer, with parallel suites holding the pool's threads, once took 22 s for the 50 ms.
        #expect(clock.now - start < .seconds(300))
    }

    @Test func bodyFailureMidStreamIsATransportError() async throws {
        var script = MockResponse.chunks([Data(count: 10)])
        script.bodyFailure = TransportError(.truncatedBody, message: "connection closed after 10 bytes")
        let session = Session(transport: MockTransport(always: script))
        await #expect {
            _ = try await session.data(for: mockRequest())
        } throws: { error in
            ((error as? CourierError)?.underlyingError as? TransportError)?.code == .truncatedBody
        }
    }

    @Test func sendStreamsTheBodyToTheCaller() async throws {
        let chunks = (0..<5).map { Data(repeating: UInt8($0), count: 3) }
        let session = Session(transport: MockTransport(always: .chunks(chunks)))
        let response = try await session.send(mockRequest())
        var pieces = 0
        for try await _ in response.body { pieces += 1 }
        #expect(pieces == 5)
        #expect(response.request?.path == "/")
    }

    @Test func onlyStartedTasksAreTracked() async throws {
        let session = Session(transport: MockTransport(always: .text("x", delay: .milliseconds(200))))
        let idle = session.dataTask(with: mockRequest())
        #expect(session.tasks.isEmpty)
        let running = session.dataTask(with: mockRequest()).resume()
        #expect(session.tasks == [running.task])
        _ = try await running.response
        #expect(session.tasks.isEmpty)
        #expect(idle.state == .suspended)
    }

    @Test func aTaskNeverResumedIsFreedWhenDropped() {
        // Found by LeakSanitizer: the hooks a task keeps until it starts captured the task itself.
        let session = Session(transport: MockTransport(always: .text("x")))
        weak var dropped: SessionTask?
        do {
            let handle = session.dataTask(with: mockRequest())
            dropped = handle.task
            #expect(dropped != nil)
        }
        #expect(dropped == nil)
    }

    @Test func aFinishedTaskLetsGoOfItsListeners() async throws {
        // Found by LeakSanitizer: a listener that keeps events keeps their tasks, and each task kept the
        // listener, so neither was ever freed.
        weak var recorderAfterwards: RecordingEventListener?
        weak var taskAfterwards: SessionTask?
        do {
            let (session, recorder) = recordingSession(MockTransport(always: .text("x")))
            let handle = session.dataTask(with: mockRequest()).resume()
            _ = try await handle.response
            #expect(recorder.events(of: .taskCompleted).count == 1)
            recorderAfterwards = recorder
            taskAfterwards = handle.task
        }
        // The runner lets go of the task when it returns, just after the response is handed out.
        for _ in 0..<300 where recorderAfterwards != nil || taskAfterwards != nil {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(recorderAfterwards == nil)
        #expect(taskAfterwards == nil)
    }

    @Test func aSentTaskKeepsItsListenersUntilTheBodyEnds() async throws {
        // `send` completes its task at the head; the body's progress and metrics come later and must still be
        // heard, so the task lets go of its listeners only when its exchange has ended.
        let (session, recorder) = recordingSession(MockTransport(always: .chunks((0..<5).map { _ in Data(repeating: 1, count: 100) }, interval: .milliseconds(5))))
        let response = try await session.send(mockRequest())
        #expect(recorder.events(of: .taskCompleted).count == 1)
        var received = 0
        for try await piece in response.body { received += piece.count }
        #expect(received == 500)
        #expect(await eventually { recorder.events(of: .downloadProgress).last?.progress?.completed == 500 })
    }

    @Test func cancellingTheSwiftTaskAwaitingAHandleCancelsIt() async throws {
        let (session, recorder) = recordingSession(MockTransport(always: .text("late", delay: .seconds(30))))
        let handle = session.dataTask(with: mockRequest())
        let waiter = Task { try await handle.response }
        #expect(await eventually { recorder.names().contains("requestSent") })
        waiter.cancel()
        await #expect { _ = try await waiter.value } throws: { ($0 as? CourierError)?.isCancellation == true }
        #expect(handle.state == .completed)
        #expect(recorder.names().suffix(2) == ["taskCancelled", "taskFailed"])
    }
}
