import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("MockTransport")
struct MockTransportTests {
    func request(_ method: HTTPRequest.Method = .get, _ path: String) -> HTTPRequest {
        HTTPRequest(method: method, scheme: "https", authority: "mock.test", path: path)
    }

    @Test func sequenceAnswersInOrderThenFails() async throws {
        let session = Session(transport: MockTransport(sequence: [.text("one"), .text("two")]))
        #expect(try await session.data(for: request(.get, "/")).text == "one")
        #expect(try await session.data(for: request(.get, "/")).text == "two")
        await #expect {
            _ = try await session.data(for: request(.get, "/"))
        } throws: { ((($0 as? CourierError)?.underlyingError) as? TransportError)?.code == .other }
    }

    @Test func routesMatchMethodAndPathIgnoringTheQuery() async throws {
        let transport = MockTransport(routes: ["POST /items": .status(.created), "/items": .text("list")])
        let session = Session(transport: transport)
        #expect(try await session.data(for: request(.post, "/items")).status == .created)
        #expect(try await session.data(for: request(.get, "/items?page=2")).text == "list")
        #expect(try await session.data(for: request(.get, "/nothing")).status == .notFound)
        #expect(transport.requests.map(\.query) == [nil, "page=2", nil])
    }

    @Test func requestsAreRecordedWithTheirBodies() async throws {
        let transport = MockTransport(always: .status(.ok))
        let session = Session(transport: transport)
        _ = try await session.data(for: request(.post, "/a"), body: Body("payload"))
        #expect(transport.requests.first?.text == "payload")
        #expect(transport.requests.first?.url?.absoluteString == "https://mock.test/a")
        transport.clearRequests()
        #expect(transport.requests.isEmpty)
    }

    @Test func knownBodiesGetAContentLength() async throws {
        let session = Session(transport: MockTransport(always: .text("12345")))
        let response = try await session.data(for: request(.get, "/"))
        #expect(response.head.headerFields[.contentLength] == "5")
        #expect(response.metrics?.bytesReceived == 5)
    }

    @Test func delaysLongerThanTheTimeoutTimeOut() async throws {
        let session = Session(
            configuration: SessionConfiguration(timeouts: Timeouts(request: .milliseconds(30))),
            transport: MockTransport(always: .text("x", delay: .seconds(10)))
        )
        await #expect {
            _ = try await session.data(for: request(.get, "/"))
        } throws: { ($0 as? CourierError)?.isTimeout == true }
    }

    @Test func responderErrorsBecomeTransportStageErrors() async throws {
        struct Scripted: Error {}
        let session = Session(transport: MockTransport { _ in throw Scripted() })
        await #expect {
            _ = try await session.data(for: request(.get, "/"))
        } throws: { ($0 as? CourierError)?.stage == .transport && ($0 as? CourierError)?.underlyingError is Scripted }
    }

    @Test func recorderFiltersByTaskAndKind() async throws {
        let recorder = RecordingEventListener()
        let session = Session(configuration: SessionConfiguration(eventListener: recorder), transport: MockTransport(always: .text("x")))
        let first = session.dataTask(with: request(.get, "/1"))
        _ = try await first.response
        _ = try await session.data(for: request(.get, "/2"))
        #expect(recorder.names(for: first.task).count == 7)
        #expect(recorder.events(of: .taskCreated).count == 2)
        #expect(!recorder.names(excluding: RecordingEventListener.progressKinds).contains("downloadProgress"))
        recorder.reset()
        #expect(recorder.events.isEmpty)
    }
}
