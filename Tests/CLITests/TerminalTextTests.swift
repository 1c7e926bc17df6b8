@testable import CourierCLI
import Foundation
import HTTPTypes
import Testing

/// A table row whose input holds control characters: the test log names it escaped, so running
/// the tests in a terminal does not retitle it or write its clipboard.
struct TerminalSample<Expected: Sendable>: Sendable, CustomTestStringConvertible {
    let input: String
    let expected: Expected
    init(_ input: String, _ expected: Expected) {
        self.input = input
        self.expected = expected
    }
    var testDescription: String { TerminalText.escaped(input) }
}

/// What a terminal is shown of server-controlled text, and that redirected output stays exact.
@Suite("Terminal-safe text")
struct TerminalTextTests {
    @Test(arguments: [
        TerminalSample("\u{1B}[31mred\u{1B}[0m", #"\x1b[31mred\x1b[0m"#),
        TerminalSample("\u{1B}]8;;http://evil.example/\u{1B}\\click\u{1B}]8;;\u{1B}\\", #"\x1b]8;;http://evil.example/\x1b\click\x1b]8;;\x1b\"#),
        TerminalSample("\u{1B}]52;c;eA==\u{07}", #"\x1b]52;c;eA==\x07"#),
        TerminalSample("\u{1B}]0;pwned\u{07}", #"\x1b]0;pwned\x07"#),
        TerminalSample("ding\u{07}", #"ding\x07"#),
        TerminalSample("\u{9B}31m", #"\x9b31m"#),
        TerminalSample("\u{9D}0;title\u{9C}", #"\x9d0;title\x9c"#),
        TerminalSample("invoice\u{202E}fdp.exe", #"invoice\u{202E}fdp.exe"#),
        TerminalSample("a\u{2066}b\u{2069}c\u{200F}d\u{061C}e\u{200E}", #"a\u{2066}b\u{2069}c\u{200F}d\u{61C}e\u{200E}"#),
        TerminalSample("naïve 日本語 🙂 Ωμέγα עברית", "naïve 日本語 🙂 Ωμέγα עברית"),
        TerminalSample("a\tb", "a\tb"),
        TerminalSample("a\rb", #"a\x0db"#),
        TerminalSample("a\nb", #"a\x0ab"#),
        TerminalSample("nul\u{0}del\u{7F}", #"nul\x00del\x7f"#),
        TerminalSample("plain ASCII: 200 OK", "plain ASCII: 200 OK"),
        TerminalSample(#"back\slash"#, #"back\slash"#),
    ] as [TerminalSample<String>])
    func textIsEscapedForATerminal(sample: TerminalSample<String>) {
        #expect(TerminalText.escaped(sample.input) == sample.expected)
        #expect(TerminalText.escaped(bytes: Array(sample.input.utf8)) == sample.expected)
    }

    @Test(arguments: [
        ([0x9B, 0x33, 0x31, 0x6D], #"\x9b31m"#),
        ([0x61, 0xFF, 0x62], #"a\xffb"#),
        ([0x61, 0xC3], #"a\xc3"#),
        ([0xC0, 0xAF], #"\xc0\xaf"#),
        ([0xED, 0xA0, 0x80], #"\xed\xa0\x80"#),
        ([0xF4, 0x90, 0x80, 0x80], #"\xf4\x90\x80\x80"#),
        ([0xE2, 0x82, 0xAC, 0xC3, 0xA9], "€é"),
    ] as [([UInt8], String)])
    func bytesThatAreNotUTF8AreShownAsHex(bytes: [UInt8], shown: String) {
        #expect(TerminalText.escaped(bytes: bytes) == shown)
        #expect(TerminalText.escaped(bytes: bytes[...]) == shown)
    }

    @Test func strictUTF8SaysWhichBytesAreWrong() {
        func step(_ bytes: [UInt8]) -> StrictUTF8.Step { bytes.withUnsafeBufferPointer { StrictUTF8.decode($0, at: 0) } }
        #expect(step([0x41]) == .scalar("A", length: 1))
        #expect(step([0xC2, 0x9B]) == .scalar("\u{9B}", length: 2))
        #expect(step([0xF0, 0x9F, 0x99, 0x82]) == .scalar("🙂", length: 4))
        #expect(step([0xE2, 0x80]) == .truncated)
        #expect(step([0xE2, 0x41]) == .invalid)
        #expect(step([0x80]) == .invalid)
        #expect(step([0xE0, 0x80, 0x80]) == .invalid)
    }

    @Test func fileNamesFromTheServerLoseControlAndBidiCharacters() {
        func name(_ disposition: String) -> String {
            DownloadFileName.suggested(contentDisposition: disposition, url: nil, contentType: nil)
        }
        #expect(name("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe") == "invoicefdp.exe")
        #expect(name("attachment; filename*=UTF-8''a%C2%9B31mb%1B.txt") == "a31mb.txt")
        #expect(name("attachment; filename*=UTF-8''tab%09bed%E2%81%A6.txt") == "tabbed.txt")
        #expect(name("attachment; filename*=UTF-8''%D7%A2%D7%91%D7%A8%D7%99%D7%AA.txt") == "עברית.txt")
    }
}

@Suite("Bodies on a terminal")
struct TerminalBodyTests {
    @Test(arguments: [
        TerminalSample("plain text\r\nwith CRLF,\ttabs and a form feed\u{0C}\n", TerminalText.BodyVerdict.text),
        TerminalSample("naïve 日本語 🙂 עברית \u{202E}bidi is text in a body\n", .text),
        TerminalSample("\u{1B}[31mred\u{1B}[0m\n", .controlCharacters),
        TerminalSample("see \u{1B}]8;;http://evil.example/\u{1B}\\here\u{1B}]8;;\u{1B}\\\n", .controlCharacters),
        TerminalSample("\u{1B}]52;c;eA==\u{07}", .controlCharacters),
        TerminalSample("ding\u{07}\n", .controlCharacters),
        TerminalSample("shift out\u{0E}\n", .controlCharacters),
        TerminalSample("\u{9B}2J", .controlCharacters),
        TerminalSample("nul\u{0}inside", .binary),
    ] as [TerminalSample<TerminalText.BodyVerdict>])
    func verdicts(sample: TerminalSample<TerminalText.BodyVerdict>) {
        #expect(TerminalText.verdict(forBody: Array(sample.input.utf8)) == sample.expected)
        #expect(TerminalText.isUnsafeForTerminal(body: Array(sample.input.utf8)) == (sample.expected != .text))
    }

    @Test func rawC1BytesAndBinaryStartsAreCaught() {
        #expect(TerminalText.verdict(forBody: [0xFF, 0xFE, 0x41, 0x00]) == .binary)
        // Past the first kilobyte a bad byte is not binary any more, but a raw CSI still counts.
        let text = [UInt8](repeating: 0x61, count: 2048)
        #expect(TerminalText.verdict(forBody: text + [0xFF, 0x61]) == .text)
        #expect(TerminalText.verdict(forBody: text + [0x9B, 0x32, 0x4A]) == .controlCharacters)
    }

    @Test func charactersCutBetweenChunksAreJudgedWhole() {
        var check = TerminalText.BodyCheck()
        #expect(check.next(ArraySlice("caf".utf8) + [0xC3]) == .text)
        #expect(check.next([0xA9, 0x0A]) == .text)
        #expect(check.next(ArraySlice("x".utf8) + [0xC2]) == .text)
        #expect(check.next([0x9B, 0x32, 0x4A]) == .controlCharacters)

        var later = TerminalText.BodyCheck()
        #expect(later.next(ArraySlice("first\n".utf8)) == .text)
        #expect(later.next(ArraySlice("second\u{1B}[2J".utf8)) == .controlCharacters)
    }

    /// Drives a ``BodyOutput`` and returns what it wrote.
    private func written(terminal: Bool, _ chunks: [[UInt8]]) -> [UInt8] {
        final class Written { var bytes: [UInt8] = [] }
        let written = Written()
        var output = BodyOutput(terminal: terminal) { written.bytes.append(contentsOf: $0) }
        for chunk in chunks { output.write(chunk[...]) }
        output.finish()
        return written.bytes
    }

    @Test func redirectedBodiesAreWrittenByteForByte() {
        let chunks: [[UInt8]] = [Array("ok ".utf8), Array("\u{1B}]0;pwned\u{07}".utf8), [0x00, 0xFF, 0x9B]]
        #expect(written(terminal: false, chunks) == chunks.flatMap { $0 })
    }

    @Test func aTerminalSeesTheTextUpToTheFirstUnsafeChunkThenANote() {
        let shown = String(decoding: written(terminal: true, [Array("hello\n".utf8), Array("\u{1B}[2J".utf8), Array("more\n".utf8)]), as: UTF8.self)
        #expect(shown == "hello\n" + BodyOutput.note(for: .controlCharacters, afterText: true))
        #expect(shown.contains("| NOTE: the rest of the body holds terminal control characters, not shown |"))
        #expect(!shown.contains("\u{1B}") && !shown.contains("more"))

        let whole = String(decoding: written(terminal: true, [Array("\u{1B}]52;c;eA==\u{07}".utf8)]), as: UTF8.self)
        #expect(whole == """
            +-------------------------------------------------------------+
            | NOTE: the body holds terminal control characters, not shown |
            | To see it: -o FILE, or redirect stdout (courier ... > FILE) |
            +-------------------------------------------------------------+

            """)
    }

    @Test func binaryBodiesGetHttpiesNote() {
        let shown = String(decoding: written(terminal: true, [[0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00]]), as: UTF8.self)
        #expect(shown == """
            +-----------------------------------------+
            | NOTE: binary data not shown in terminal |
            +-----------------------------------------+

            """)
        // Text cut short without a newline gets one before the note and before the prompt.
        #expect(String(decoding: written(terminal: true, [Array("abc".utf8), [0x00]]), as: UTF8.self).hasPrefix("abc\n+---"))
        #expect(written(terminal: true, [Array("abc".utf8)]) == Array("abc\n".utf8))
        #expect(written(terminal: false, [Array("abc".utf8)]) == Array("abc".utf8))
    }
}

@Suite("Heads and errors on a terminal and redirected")
struct TerminalHeadTests {
    private var hostileResponse: HTTPResponse {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentType, value: "text/plain"))
        // The transport keeps a value's bytes but CR, LF and NUL (HTTPTypes' lenient rule).
        fields.append(HTTPField(name: HTTPField.Name("X-Title")!, lenientValue: Array("\u{1B}]0;pwned\u{07}".utf8)))
        fields.append(HTTPField(name: HTTPField.Name("X-Latin1")!, lenientValue: [0x63, 0x61, 0x66, 0xE9]))
        // A reason phrase keeps C1 and bidi characters (HTTPTypes turns only C0 into spaces).
        return HTTPResponse(status: HTTPResponse.Status(code: 200, reasonPhrase: "OK\u{9B}2J\u{202E}"), headerFields: fields)
    }

    @Test func aResponseHeadIsEscapedOnATerminal() {
        let head = HeadFormatter.format(hostileResponse, version: "HTTP/1.1", terminal: true)
        #expect(String(decoding: head, as: UTF8.self) == #"""
            HTTP/1.1 200 OK\x9b2J\u{202E}
            Content-Type: text/plain
            X-Title: \x1b]0;pwned\x07
            X-Latin1: caf\xe9


            """#)
    }

    @Test func aRedirectedResponseHeadIsTheBytesReceived() {
        let head = HeadFormatter.format(hostileResponse, version: "HTTP/1.1", terminal: false)
        let expected: [UInt8] = Array("HTTP/1.1 200 OK\u{9B}2J\u{202E}\nContent-Type: text/plain\nX-Title: \u{1B}]0;pwned\u{07}\nX-Latin1: caf".utf8)
            + [0xE9] + Array("\n\n".utf8)
        #expect(head == expected)
    }

    @Test func aRedirectedRequestsPathIsEscapedOnATerminal() {
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/next\u{202E}txt.exe")
        #expect(String(decoding: HeadFormatter.format(request, version: nil, terminal: true), as: UTF8.self)
            == "GET /next\\u{202E}txt.exe\nHost: 127.0.0.1:8080\n\n")
        #expect(HeadFormatter.format(request, version: nil, terminal: false) == Array("GET /next\u{202E}txt.exe\nHost: 127.0.0.1:8080\n\n".utf8))
    }

    @Test func errorLinesAreEscapedOnATerminal() {
        let error = CLIError("the server answered the resume with bytes \u{1B}[2J0-1/2, not a range", hint: "see \u{9B}1m")
        #expect(ErrorReport.lines(for: error, terminal: true) == [
            #"courier: error: the server answered the resume with bytes \x1b[2J0-1/2, not a range"#,
            #"courier: hint: see \x9b1m"#,
        ])
        #expect(ErrorReport.lines(for: error, terminal: false) == [
            "courier: error: the server answered the resume with bytes \u{1B}[2J0-1/2, not a range",
            "courier: hint: see \u{9B}1m",
        ])
    }

    @Test func consoleTextEscapesOnlyTheServersParts() {
        var terminal = ConsoleText(terminal: true)
        terminal.append("own\t")
        terminal.append(untrusted: "\u{1B}x")
        terminal.append(untrusted: [0xFF] as [UInt8])
        #expect(terminal.bytes == Array(("own\t" + #"\x1bx\xff"#).utf8))
        var file = ConsoleText(terminal: false)
        file.append(untrusted: "\u{1B}x")
        file.append(untrusted: [0xFF] as [UInt8])
        #expect(file.bytes == [0x1B, 0x78, 0xFF])
    }
}
