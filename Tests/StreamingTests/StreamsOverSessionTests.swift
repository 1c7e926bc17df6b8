import CourierCore
import CourierStreaming
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// Lines, NDJSON and event sources through a session over `MockTransport`.
@Suite struct StreamsOverSessionTests {
    private let request = HTTPRequest(method: .get, scheme: "https", authority: "stream.test", path: "/")

    private func chunked(_ text: String, pieceSize: Int, contentType: String) -> MockResponse {
        let bytes = Array(text.utf8)
        let pieces = stride(from: 0, to: bytes.count, by: pieceSize).map { Data(bytes[$0..<min(bytes.count, $0 + pieceSize)]) }
        return MockResponse(headerFields: [.contentType: contentType], body: .chunks(pieces, interval: .zero))
    }

    @Test func linesArriveWhateverTheChunks() async throws {
        for size in [1, 2, 3, 7, 64] {
            let session = Session(transport: MockTransport(always: chunked("one\r\ntwo\n\nfour", pieceSize: size, contentType: "text/plain")))
            var lines: [String] = []
            for try await line in try await session.send(request).body.lines() { lines.append(line) }
            #expect(lines == ["one", "two", "", "four"])
        }
    }

    @Test func ndjsonDecodesLineByLineAndNamesABadLine() async throws {
        struct Tick: Decodable, Sendable, Equatable { var n: Int }
        let good = Session(transport: MockTransport(always: chunked("{\"n\":1}\n\n{\"n\":2}\r\n", pieceSize: 3, contentType: "application/x-ndjson")))
        var ticks: [Tick] = []
        for try await tick in try await good.send(request).body.jsonLines(of: Tick.self) { ticks.append(tick) }
        #expect(ticks == [Tick(n: 1), Tick(n: 2)])

        let bad = Session(transport: MockTransport(always: chunked("{\"n\":1}\n{\"n\":\"two\"}\n", pieceSize: 5, contentType: "application/x-ndjson")))
        let error = await #expect(throws: CourierError.self) {
            for try await _ in try await bad.send(request).body.jsonLines(of: Tick.self) {}
        }
        #expect(error?.kind == .serializationFailed)
        #expect((error?.underlyingError as? StreamError)?.line == 2)
    }

    @Test func aLineTooLongOrNotUTF8EndsTheLinesTyped() async throws {
        let long = Session(transport: MockTransport(always: chunked(String(repeating: "x", count: 5000), pieceSize: 100, contentType: "text/plain")))
        let tooLong = await #expect(throws: CourierError.self) {
            for try await _ in try await long.send(request).body.lines(maximumLength: 1000) {}
        }
        #expect(tooLong?.kind == .tooLarge)

        let invalid = MockResponse(headerFields: [.contentType: "text/plain"], body: .chunks([Data("ok\n".utf8), Data([0xC3, 0x28, 0x0A])], interval: .zero))
        let notUTF8 = await #expect(throws: CourierError.self) {
            for try await _ in try await Session(transport: MockTransport(always: invalid)).send(request).body.lines() {}
        }
        #expect(notUTF8?.kind == .malformedResponse && (notUTF8?.underlyingError as? StreamError)?.line == 2)
    }

    /// A server of events 1…`count` that drops each connection after `perConnection` events and records the
    /// `Last-Event-ID` of each request; `204` once everything was sent.
    final class EventServer: Sendable {
        let count: Int
        let perConnection: Int
        let lastEventIDs = Locked<[String?]>([])

        init(count: Int, perConnection: Int) {
            self.count = count
            self.perConnection = perConnection
        }

        var transport: MockTransport {
            MockTransport { [self] request in
                let last = request.head.headerFields[HTTPField.Name("Last-Event-ID")!]
                lastEventIDs.withLock { $0.append(last) }
                let start = (last.flatMap { Int($0) } ?? 0) + 1
                guard start <= count else { return .status(.noContent) }
                let end = min(count, start + perConnection - 1)
                let events = (start...end).map { Data("id: \($0)\ndata: event \($0)\n\n".utf8) }
                var response = MockResponse(headerFields: [.contentType: "text/event-stream; charset=utf-8"], body: .chunks([Data("retry: 1\n".utf8)] + events, interval: .zero))
                if end < count { response.bodyFailure = TransportError(.connectionLost, message: "reset by peer") }
                return response
            }
        }
    }

    @Test func anEventSourceReconnectsWithTheLastIDUntilA204() async throws {
        let server = EventServer(count: 7, perConnection: 3)
        let session = Session(transport: server.transport)
        var received: [String] = []
        for try await event in session.events(for: request) { received.append(event.data) }
        #expect(received == (1...7).map { "event \($0)" })
        #expect(server.lastEventIDs.withLock { $0 } == [nil, "3", "6", "7"])
    }

    @Test func theRequestAsksForAnEventStream() async throws {
        let transport = MockTransport { _ in .status(.noContent) }
        for try await _ in Session(transport: transport).events(for: request) {}
        let sent = try #require(transport.requests.first?.head.headerFields)
        #expect(sent[.accept] == "text/event-stream" && sent[.cacheControl] == "no-cache")
    }

    @Test func anErrorStatusOrAnotherContentTypeIsNotRetried() async throws {
        let failing = MockTransport { _ in .text("down", status: .serviceUnavailable) }
        let status = await #expect(throws: CourierError.self) {
            for try await _ in Session(transport: failing).events(for: request) {}
        }
        #expect(status?.kind == .unacceptableStatus && (status?.underlyingError as? StreamError)?.code == .notAnEventStream)
        #expect(failing.requests.count == 1)

        let html = MockTransport { _ in MockResponse(headerFields: [.contentType: "text/html"], body: .bytes(Data("<p>".utf8))) }
        let type = await #expect(throws: CourierError.self) {
            for try await _ in Session(transport: html).events(for: request) {}
        }
        #expect(type?.kind == .unacceptableContentType && html.requests.count == 1)
    }

    @Test func failuresInARowWithoutAnEventEndTheSequence() async throws {
        let refusing = MockTransport { _ in .failure(TransportError(.cannotConnect, message: "connection refused")) }
        let configuration = EventSourceConfiguration(reconnectionTime: .milliseconds(1), maximumConsecutiveFailures: 4)
        let error = await #expect(throws: CourierError.self) {
            for try await _ in Session(transport: refusing).events(for: request, configuration: configuration) {}
        }
        let reason = try #require(error?.underlyingError as? StreamError)
        #expect(reason.code == .tooManyFailures && reason.limit == 4)
        #expect(error?.kind == .connectionFailed)
        #expect(refusing.requests.count == 4)
    }

    @Test func cancellingTheIteratingTaskEndsItWhileItWaitsToReconnect() async throws {
        let closing = MockTransport { _ in MockResponse(headerFields: [.contentType: "text/event-stream"], body: .bytes(Data("data: x\n\n".utf8))) }
        let configuration = EventSourceConfiguration(reconnectionTime: .seconds(600), maximumConsecutiveFailures: nil)
        let reader = Task {
            var count = 0
            for try await _ in Session(transport: closing).events(for: request, configuration: configuration) { count += 1 }
            return count
        }
        while closing.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(50))
        reader.cancel()
        let error = await #expect(throws: CourierError.self) { try await reader.value }
        #expect(error?.kind == .cancelled)
    }
}
