@testable import CourierStreaming
import CourierTesting
import Testing

/// `LineSplitter`: the same lines however the bytes are cut.
@Suite struct LineSplitterTests {
    private func lines(_ chunks: [[UInt8]], _ terminators: LineSplitter.Terminators, maximumLength: Int = 100) throws -> [String] {
        var splitter = LineSplitter(terminators: terminators, maximumLength: maximumLength)
        var lines: [String] = []
        for chunk in chunks {
            try splitter.append(chunk[...]) { lines.append(String(decoding: $0, as: UTF8.self)) }
        }
        if let last = try splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
        return lines
    }

    /// Every way of cutting `text` in two, and 200 seeded ways of cutting it in up to eight pieces.
    private func cuts(of text: String) -> [[[UInt8]]] {
        let bytes = Array(text.utf8)
        var result = [[bytes]]
        for cut in 0...bytes.count { result.append([Array(bytes[..<cut]), Array(bytes[cut...])]) }
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            var pieces: [[UInt8]] = []
            var start = 0
            while start < bytes.count {
                let length = Int(random.next() % 4)   // zero-length pieces included
                let end = min(bytes.count, start + length)
                pieces.append(Array(bytes[start..<end]))
                start = end
                if pieces.count > 64 { pieces.append(Array(bytes[start...])); break }
            }
            result.append(pieces)
        }
        return result
    }

    @Test(arguments: [
        ("a\nb\r\nc\n", ["a", "b", "c"]),
        ("a\r\n\r\nb", ["a", "", "b"]),
        ("lone\rcr\n", ["lone\rcr"]),
        ("\n\n", ["", ""]),
        ("no terminator", ["no terminator"]),
        ("trailing cr\r", ["trailing cr\r"]),
        ("", []),
    ])
    func lineFeedLinesAreTheSameHoweverCut(text: String, expected: [String]) throws {
        for chunks in cuts(of: text) {
            #expect(try lines(chunks, .lineFeed) == expected, "cut as \(chunks)")
        }
    }

    @Test(arguments: [
        ("a\rb\nc\r\nd\n", ["a", "b", "c", "d"]),
        ("\r\r\n\n", ["", "", ""]),
        ("x\r", ["x"]),
        ("x\r\ny", ["x", "y"]),
    ])
    func eventStreamLinesEndAtCRLFLFOrCR(text: String, expected: [String]) throws {
        for chunks in cuts(of: text) {
            #expect(try lines(chunks, .any) == expected, "cut as \(chunks)")
        }
    }

    @Test func aLastLineEndingInCRIsHeldToTheLimitToo() throws {
        // Found by the streams fuzz target: ten bytes and a CR, the stream's end, made an 11-byte line past a limit of 10.
        let text = String(repeating: "x", count: 10) + "\r"
        for chunks in cuts(of: text) {
            let error = #expect(throws: StreamError.self) { try lines(chunks, .lineFeed, maximumLength: 10) }
            #expect(error?.code == .lineTooLong)
        }
        #expect(try lines([Array(text.utf8)], .lineFeed, maximumLength: 11) == [text])
    }

    @Test func theLimitIsTheLineWithoutItsTerminator() throws {
        let exact = String(repeating: "x", count: 10)
        for chunks in cuts(of: exact + "\r\n" + exact + "\n") {
            #expect(try lines(chunks, .lineFeed, maximumLength: 10) == [exact, exact])
        }
        for chunks in cuts(of: exact + "y\n") {
            let error = #expect(throws: StreamError.self) { try lines(chunks, .lineFeed, maximumLength: 10) }
            #expect(error?.code == .lineTooLong && error?.line == 1 && error?.limit == 10)
        }
        // A stream with no line break at all is refused once it passes the limit, not held whole.
        var splitter = LineSplitter(terminators: .lineFeed, maximumLength: 1024)
        let error = #expect(throws: StreamError.self) {
            for _ in 0..<1_000 { try splitter.append([UInt8](repeating: 0x61, count: 100)[...]) { _ in } }
        }
        #expect(error?.code == .lineTooLong)
    }
}
