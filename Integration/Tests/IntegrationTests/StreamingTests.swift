import CourierCore
import CourierCurl
import CourierStreaming
import Foundation
import HTTPTypes
import Testing

/// Server-sent events and line streams against the streaming server (Integration/Servers/sse_server.py), with curl's
/// reading of the same routes in its smoke test as the oracle for the server's bytes.
@Suite("Streaming")
struct StreamingTests {
    /// What the server puts in each event's data.
    struct Payload: Decodable, Equatable { var id: Int; var lastEventId: String; var connection: Int }

    /// A transport of the suite's own: streams cut into 1-to-7-byte chunks keep a curl loop thread busy with thousands
    /// of deliveries, which must not delay the other suites' transfers on the shared transport (their "prompt"
    /// bounds failed in CI when these ran there). Memory flatness over a long stream is checked by a process of its
    /// own (Scripts/lib/cli_session_stream_check.py), where no other suite shares the resident size.
    private static let transport: CurlTransport = {
        do { return try CurlTransport() } catch { fatalError("CurlTransport did not start: \(error)") }
    }()

    private var api: Session { session(Servers.sse, transport: Self.transport) }

    /// A stream name no other test uses, so the server's connection counter is this test's.
    private func streamName(_ test: String = #function) -> String { "\(test.prefix { $0 != "(" })-\(UUID().uuidString.prefix(8))" }

    /// How many requests the server saw for `stream`.
    private func connections(_ stream: String) async throws -> Int {
        Int(try await api.data(.get, "connections?stream=\(stream)").text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    @Test func aStreamCutEveryThreeEventsIsResumedWithLastEventIDUntil204() async throws {
        let stream = streamName()
        let source = try api.events("events?count=10&drop_after=3&retry=20&stream=\(stream)")
        var payloads: [Payload] = []
        for try await event in source { payloads.append(try event.decode(Payload.self)) }
        #expect(payloads.map(\.id) == Array(1...10))
        // Each connection after a cut asked for the events after the last it had.
        #expect(payloads.filter { $0.id % 3 == 1 }.map(\.lastEventId) == ["", "3", "6", "9"])
        #expect(payloads.map(\.connection) == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4])
        // Four streams, then the reconnection that got 204 and ended the sequence: no sixth.
        #expect(try await connections(stream) == 5)
    }

    @Test(arguments: ["lf", "crlf", "cr"], [false, true])
    func everyFramingGivesTheSameEvents(lineEnding: String, split: Bool) async throws {
        let stream = streamName()
        let query = "count=6&line_ending=\(lineEnding)&split=\(split ? 1 : 0)&bom=1&comments=1&multiline=1&named=1&stream=\(stream)"
        let source = try api.events("events?\(query)", configuration: EventSourceConfiguration(reconnectionTime: .milliseconds(10)))
        var events: [ServerSentEvent] = []
        for try await event in source { events.append(event) }
        #expect(events.count == 6)
        for (index, event) in events.enumerated() {
            let lines = event.data.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(event.type == "tick" && event.lastEventID == "\(index + 1)")
            #expect(lines.count == 3 && lines.first == "line one" && lines.last == "line three")
            #expect(try JSONDecoder().decode(Payload.self, from: Data(lines[1].utf8)).id == index + 1)
        }
    }

    @Test func anErrorStatusOrContentTypeEndsTheSequenceWithoutReconnecting() async throws {
        let stream = streamName()
        let refused = await #expect(throws: CourierError.self) {
            for try await _ in try api.events("events?status=503&stream=\(stream)") {}
        }
        #expect(refused?.kind == .unacceptableStatus)
        #expect((refused?.underlyingError as? StreamError)?.response?.status == .serviceUnavailable)
        let html = await #expect(throws: CourierError.self) {
            for try await _ in try api.events("events?content_type=text/html&stream=\(stream)") {}
        }
        #expect(html?.kind == .unacceptableContentType)
        #expect(try await connections(stream) == 2)
    }

    @Test func aServerThatKeepsDyingBeforeAnEventIsGivenUpOn() async throws {
        // count=0: each stream ends at once without an event; five such ends in a row end the sequence.
        let stream = streamName()
        let configuration = EventSourceConfiguration(reconnectionTime: .milliseconds(10), maximumConsecutiveFailures: 5)
        let error = await #expect(throws: CourierError.self) {
            for try await _ in try api.events("events?count=0&stream=\(stream)", configuration: configuration) {}
        }
        #expect((error?.underlyingError as? StreamError)?.code == .tooManyFailures)
        #expect(try await connections(stream) == 5)
    }

    @Test(arguments: [false, true], ["lf", "crlf"])
    func linesAndJSONLinesArriveWhole(split: Bool, lineEnding: String) async throws {
        let response = try await api.send(try api.makeRequest(.get, "lines?count=300&size=64&line_ending=\(lineEnding)&split=\(split ? 1 : 0)"))
        var count = 0
        for try await line in response.body.lines() {
            count += 1
            #expect(line.hasPrefix("line \(count)") && line.utf8.count == 64)
        }
        #expect(count == 300)

        struct Line: Decodable { var n: Int; var pad: String }
        let ndjson = try await api.send(try api.makeRequest(.get, "lines?count=100&size=40&ndjson=1&final_newline=0&line_ending=\(lineEnding)&split=\(split ? 1 : 0)"))
        var numbers: [Int] = []
        for try await line in ndjson.body.jsonLines(of: Line.self) { numbers.append(line.n) }
        #expect(numbers == Array(1...100))
    }

    @Test func aCutLineStreamAndAnOverlongLineFailTyped() async throws {
        let cut = try await api.send(try api.makeRequest(.get, "lines?count=100&drop_after=10"))
        var seen = 0
        let error = await #expect(throws: CourierError.self) { for try await _ in cut.body.lines() { seen += 1 } }
        #expect(error?.kind == .malformedResponse && seen == 10)

        let long = try await api.send(try api.makeRequest(.get, "lines?count=5&long=3000000"))
        var before = 0
        let tooLong = await #expect(throws: CourierError.self) { for try await _ in long.body.lines() { before += 1 } }
        #expect(tooLong?.kind == .tooLarge && before == 2)
    }
}
