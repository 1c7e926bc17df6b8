import CourierCore
import CourierStreaming
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

// docs/streaming.md's examples, verbatim (Scripts/lib/check-doc-examples.py checks that each appears here), run
// against a MockTransport playing the API: each stream ends with the server's 204 or the body's end.

@Suite struct StreamingDocExamplesTests {
    private static func stream(_ text: String) -> MockResponse {
        // `retry: 10`: the reconnection that meets the 204 comes after 10 ms, not 3 s.
        MockResponse(headerFields: [.contentType: "text/event-stream"], body: .chunks(("retry: 10\n" + text).utf8.map { Data([$0]) }, interval: .zero))
    }

    /// The API: event streams that end after one connection (the reconnection gets 204), a log and NDJSON ticks.
    private let transport = MockTransport { request in
        let resumed = request.head.headerFields[HTTPField.Name("Last-Event-ID")!] != nil
        switch request.pathWithoutQuery {
        case "/v1/notifications": return resumed ? .status(.noContent) : stream("id: 1\nevent: mention\ndata: hello\n\n")
        case "/v1/prices": return resumed ? .status(.noContent) : stream("id: 1\nevent: price\ndata: {\"symbol\":\"ACME\",\"value\":9.5}\n\nid: 2\ndata: closing\n\n")
        case "/v1/feed": return .status(.noContent)
        case "/v1/logs/tail": return .text("started\r\nready\n")
        case "/v1/ticks": return MockResponse(headerFields: [.contentType: "application/x-ndjson"], body: .chunks([Data("{\"n\":1}\n{\"n\"".utf8), Data(":2}\n".utf8)], interval: .zero))
        default: return .status(.notFound)
        }
    }

    private var api: Session {
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1"))
        configuration.headers[.authorization] = "Bearer t"
        return Session(configuration: configuration, transport: transport)
    }

    @Test func events() async throws {
        let api = self.api
        for try await event in try api.events("notifications") {
            print(event.type, event.lastEventID, event.data)
        }
        let sent = transport.requests.map(\.head)
        #expect(sent.map(\.path) == ["/v1/notifications", "/v1/notifications"])
        #expect(sent.allSatisfy { $0.headerFields[.authorization] == "Bearer t" })   // the session's headers
        #expect(sent.last?.headerFields[HTTPField.Name("Last-Event-ID")!] == "1")
    }

    @Test func typedEvents() async throws {
        let api = self.api
        struct Price: Decodable { var symbol: String; var value: Double }
        for try await event in try api.events("prices") where event.type == "price" {
            let price = try event.decode(Price.self)
            print(price.symbol, price.value)
        }
        // Again, keeping what the example printed.
        var seen: [String] = []
        for try await event in try api.events("prices") where event.type == "price" {
            seen.append(try event.decode(Price.self).symbol)
        }
        #expect(seen == ["ACME"])
    }

    @Test func configuration() async throws {
        let api = self.api
        var configuration = EventSourceConfiguration()
        configuration.reconnectionTime = .seconds(1)        // until the server sends `retry:`
        configuration.maximumConsecutiveFailures = nil       // reconnect for as long as the caller iterates
        let feed = try api.events("feed", options: RequestOptions(timeouts: Timeouts(lowSpeedTime: .seconds(300))), configuration: configuration)
        var count = 0
        for try await _ in feed { count += 1 }
        #expect(count == 0 && transport.requests.count == 1)
    }

    @Test func lines() async throws {
        let api = self.api
        let log = try await api.send(try api.makeRequest(.get, "logs/tail"))
        for try await line in log.body.lines() {
            print(line)
        }
        var seen: [String] = []
        for try await line in try await api.send(try api.makeRequest(.get, "logs/tail")).body.lines() { seen.append(line) }
        #expect(seen == ["started", "ready"])
    }

    @Test func jsonLines() async throws {
        let api = self.api
        struct Tick: Decodable, Sendable { var n: Int }
        let ticks = try await api.send(try api.makeRequest(.get, "ticks"))
        for try await tick in ticks.body.jsonLines(of: Tick.self) {
            print(tick.n)
        }
        var seen: [Int] = []
        for try await tick in try await api.send(try api.makeRequest(.get, "ticks")).body.jsonLines(of: Tick.self) { seen.append(tick.n) }
        #expect(seen == [1, 2])
    }
}
