@testable import CourierStreaming
import CourierTesting
import Testing

/// The WHATWG event-stream interpretation (`EventStreamParser`): the specification's examples, and
/// the same events however the bytes are cut.
@Suite struct EventStreamParserTests {
    private func events(_ chunks: [[UInt8]], parser: inout EventStreamParser) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for chunk in chunks { try parser.append(chunk[...]) { events.append($0) } }
        return events
    }

    private func events(_ text: String, cutAt cuts: [Int] = []) throws -> [ServerSentEvent] {
        var parser = EventStreamParser(maximumLineLength: 1 << 20, maximumEventSize: 1 << 20)
        return try events(pieces(Array(text.utf8), cuts), parser: &parser)
    }

    private func pieces(_ bytes: [UInt8], _ cuts: [Int]) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var start = 0
        for cut in cuts.sorted() where cut >= start && cut <= bytes.count {
            result.append(Array(bytes[start..<cut]))
            start = cut
        }
        result.append(Array(bytes[start...]))
        return result
    }

    @Test func dataLinesJoinWithLineFeeds() throws {
        #expect(try events("data: YHOO\ndata: +2\ndata: 10\n\n") == [ServerSentEvent(data: "YHOO\n+2\n10")])
    }

    @Test func commentsIDsAndOneLeadingSpace() throws {
        let stream = ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
        #expect(try events(stream) == [
            ServerSentEvent(data: "first event", lastEventID: "1"),
            ServerSentEvent(data: "second event", lastEventID: ""),
            ServerSentEvent(data: " third event", lastEventID: ""),
        ])
    }

    @Test func emptyDataAndAnUnfinishedEvent() throws {
        // Two events, "" and "\n"; the last "data:" is never ended by a blank line and is dropped.
        #expect(try events("data\n\ndata\ndata\n\ndata:") == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
    }

    @Test func aSpaceAfterTheColonIsOptional() throws {
        #expect(try events("data:test\n\ndata: test\n\n") == [ServerSentEvent(data: "test"), ServerSentEvent(data: "test")])
    }

    @Test func typesRetryAndIgnoredFields() throws {
        var parser = EventStreamParser(maximumLineLength: 1 << 20, maximumEventSize: 1 << 20)
        let stream = "retry: 1500\nevent: price\nunknown: x\ndata: 1\n\nretry: 2s\ndata: 2\n\nid: a\u{0}b\ndata: 3\n\n"
        let received = try events([Array(stream.utf8)], parser: &parser)
        #expect(received.map(\.type) == ["price", "message", "message"])
        #expect(received.map(\.data) == ["1", "2", "3"])
        #expect(received.map(\.lastEventID) == ["", "", ""])   // an id holding NUL is ignored
        #expect(parser.reconnectionTime == .milliseconds(1500))   // "2s" is not digits only
    }

    @Test func aByteOrderMarkIsDroppedOnceAtTheStart() throws {
        let stream = [0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("data: b\n\n".utf8)
        for cut in 0...stream.count {
            var parser = EventStreamParser(maximumLineLength: 1 << 20, maximumEventSize: 1 << 20)
            let received = try events(pieces(stream, [1, cut]), parser: &parser)
            // The second mark is not at the start: it stays, starting the field name, so that line is ignored.
            #expect(received.map(\.data) == ["a"], "cut at 1 and \(cut)")
        }
    }

    @Test func everyCutGivesTheSameEvents() throws {
        let stream = "retry: 10\r\n: ping\r\nid: 7\r\nevent: tick\r\ndata: {\"n\":1}\r\ndata: é\r\n\r\ndata: x\rdata: y\r\rdata: z\n\n"
        let whole = try events(stream)
        #expect(whole == [
            ServerSentEvent(type: "tick", data: "{\"n\":1}\né", lastEventID: "7"),
            ServerSentEvent(data: "x\ny", lastEventID: "7"),
            ServerSentEvent(data: "z", lastEventID: "7"),
        ])
        let count = stream.utf8.count
        for first in 0...count {
            #expect(try events(stream, cutAt: [first]) == whole, "cut at \(first)")
        }
        var random = SplitMix64(seed: 11)
        for _ in 0..<300 {
            let cuts = (0..<6).map { _ in Int(random.next() % UInt64(count + 1)) }
            #expect(try events(stream, cutAt: cuts) == whole, "cut at \(cuts)")
        }
    }

    @Test func anEventIsBounded() throws {
        var parser = EventStreamParser(maximumLineLength: 100, maximumEventSize: 10)
        let error = #expect(throws: StreamError.self) {
            _ = try events([Array("data: 123456\ndata: 7890\ndata: x\n\n".utf8)], parser: &parser)
        }
        #expect(error?.code == .eventTooLarge && error?.line == 2)   // "123456\n7890" is 11 bytes
        var lines = EventStreamParser(maximumLineLength: 8, maximumEventSize: 100)
        #expect(throws: StreamError.self) { _ = try events([Array("data: 123456789\n\n".utf8)], parser: &lines) }
    }

    @Test func aNewStreamKeepsTheLastIDAndDropsTheUnfinishedEvent() throws {
        var parser = EventStreamParser(maximumLineLength: 1 << 20, maximumEventSize: 1 << 20)
        _ = try events([Array("id: 4\ndata: a\n\ndata: cut off".utf8)], parser: &parser)
        #expect(parser.lastEventID == "4")
        parser.startStream()
        let received = try events([Array("data: b\n\n".utf8)], parser: &parser)
        #expect(received == [ServerSentEvent(data: "b", lastEventID: "4")])
    }
}
