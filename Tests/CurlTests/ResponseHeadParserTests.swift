@testable import CourierCurl
import HTTPTypes
import Testing

@Suite("Response head parser")
struct ResponseHeadParserTests {
    func parse(_ lines: [String]) -> ResponseHeadParser.Outcome {
        var parser = ResponseHeadParser()
        var last = ResponseHeadParser.Outcome.needMore
        for line in lines {
            last = parser.consume(line: line)
            if case .needMore = last { continue }
            return last
        }
        return last
    }

    @Test func statusLineAndFieldsMakeAHead() throws {
        let outcome = parse(["HTTP/1.1 201 Created", "Content-Type: text/plain", "X-A:  spaced  ", "Set-Cookie: a=1", "Set-Cookie: b=2", ""])
        guard case .head(let head) = outcome else { Issue.record("no head: \(outcome)"); return }
        #expect(head.status.code == 201)
        #expect(head.status.reasonPhrase == "Created")
        #expect(head.headerFields[.contentType] == "text/plain")
        #expect(head.headerFields[HTTPField.Name("X-A")!] == "spaced")
        #expect(head.headerFields[values: .setCookie] == ["a=1", "b=2"])
    }

    @Test func http2StatusLinesHaveNoReason() {
        guard case .head(let head) = parse(["HTTP/2 204 ", ""]) else { Issue.record("no head"); return }
        #expect(head.status.code == 204)
    }

    @Test func informationalResponsesAreSkipped() {
        guard case .head(let head) = parse(["HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a>", "", "HTTP/1.1 200 OK", "X-Final: 1", ""]) else {
            Issue.record("no head"); return
        }
        #expect(head.status.code == 200)
        #expect(head.headerFields[HTTPField.Name("Link")!] == nil)
        #expect(head.headerFields[HTTPField.Name("X-Final")!] == "1")
    }

    @Test func foldedLinesContinueTheValue() {
        guard case .head(let head) = parse(["HTTP/1.1 200 OK", "X-Long: first", "\tsecond", ""]) else { Issue.record("no head"); return }
        #expect(head.headerFields[HTTPField.Name("X-Long")!] == "first second")
    }

    /// Parses raw lines (bytes, not strings), so a test can hand over what no Swift string holds.
    func parse(bytes lines: [[UInt8]]) -> ResponseHeadParser.Outcome {
        var parser = ResponseHeadParser()
        for line in lines {
            let outcome = (line + [0x0D, 0x0A]).withUnsafeBytes { parser.consume($0) }
            if case .needMore = outcome { continue }
            return outcome
        }
        return .needMore
    }

    func valueBytes(_ head: HTTPResponse, _ name: String) -> [UInt8]? {
        guard let field = head.headerFields.first(where: { $0.name.rawName == name }) else { return nil }
        return field.withUnsafeBytesOfValue { Array($0) }
    }

    /// Plain values take a faster path than other values; both must keep the server's bytes, lenient as
    /// before: only CR, LF and NUL become spaces, and bytes that are not UTF-8 stay as they came.
    @Test func everyKindOfValueKeepsItsBytes() {
        let status = Array("HTTP/1.1 200 OK".utf8)
        let lines: [[UInt8]] = [
            status,
            Array("X-Plain: application/json; charset=utf-8".utf8),
            Array("X-Tab: a\tb".utf8),
            Array("X-Control: a".utf8) + [0x01, 0x7F] + Array("b".utf8),
            Array("X-UTF8: caf\u{E9}".utf8),
            Array("X-Latin1: caf".utf8) + [0xE9],
            Array("X-Nul: a".utf8) + [0x00] + Array("b".utf8),
            [],
        ]
        guard case .head(let head) = parse(bytes: lines) else { Issue.record("no head"); return }
        #expect(valueBytes(head, "X-Plain") == Array("application/json; charset=utf-8".utf8))
        #expect(valueBytes(head, "X-Tab") == Array("a\tb".utf8))
        #expect(valueBytes(head, "X-Control") == Array("a".utf8) + [0x01, 0x7F] + Array("b".utf8))
        #expect(valueBytes(head, "X-UTF8") == Array("caf\u{E9}".utf8))
        #expect(valueBytes(head, "X-Latin1") == Array("caf".utf8) + [0xE9])
        #expect(valueBytes(head, "X-Nul") == Array("a b".utf8))
    }

    @Test func aFoldedLineAfterARefusedNameIsDropped() {
        guard case .head(let head) = parse(["HTTP/1.1 200 OK", "Bad Name: x", " continued", "X-Next: y", ""]) else {
            Issue.record("no head"); return
        }
        #expect(head.headerFields.count == 1)
        #expect(head.headerFields[HTTPField.Name("X-Next")!] == "y")
    }

    @Test func foldedLinesJoinWithOneSpaceAndLoseTheirTrailingBlanks() {
        guard case .head(let head) = parse(["HTTP/1.1 200 OK", "X-Long: first  ", " \t second\t ", "\tthird", ""]) else {
            Issue.record("no head"); return
        }
        #expect(head.headerFields[HTTPField.Name("X-Long")!] == "first second third")
    }

    @Test(arguments: ["HTTP/1.1 abc", "ICY 200 OK", "HTTP/1.1 20 OK", "garbage", "HTTP/ 200 OK", "HTTP/1. 200 OK",
                      "HTTP/11 200 OK", "HTTP/1.1.1 200 OK", "HTTP/a.b 200 OK", "HTTP/1.1\u{0337} 200 OK",
                      "HTTP/\u{0337}2 200 OK"])
    func malformedStatusLinesAreRefused(line: String) {
        guard case .malformed = parse([line]) else { Issue.record("accepted \(line)"); return }
    }

    @Test(arguments: ["HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3"])
    func everyVersionCurlSpeaksIsKept(version: String) {
        var parser = ResponseHeadParser()
        _ = parser.consume(line: "\(version) 200 OK")
        guard case .head = parser.consume(line: "") else { Issue.record("no head for \(version)"); return }
        #expect(parser.version == version)
    }

    /// `Content-Length : 5` is a length to a server or proxy that trims the space, and none to libcurl, so the two
    /// would frame the body differently; RFC 9112 section 5.1 forbids the space for this reason. Other names with a
    /// space before their colon are dropped, as before.
    @Test(arguments: ["Content-Length : 5", "content-length\t: 5", "Transfer-Encoding : chunked", "TRANSFER-ENCODING  :chunked"])
    func whitespaceBeforeTheColonOfAFramingFieldIsMalformed(line: String) {
        guard case .malformed(let reason) = parse(["HTTP/1.1 200 OK", line, ""]) else { Issue.record("accepted \(line)"); return }
        #expect(reason.contains("whitespace"), "\(reason)")
    }

    @Test func whitespaceBeforeTheColonOfAnotherFieldDropsIt() {
        guard case .head(let head) = parse(["HTTP/1.1 200 OK", "X-Content-Length : 5", "Content-Lengths : 5", "X-Next: y", ""]) else {
            Issue.record("no head"); return
        }
        #expect(head.headerFields.count == 1)
    }

    @Test func headerLineWithoutColonIsMalformed() {
        guard case .malformed = parse(["HTTP/1.1 200 OK", "no colon here"]) else { Issue.record("accepted"); return }
    }

    @Test func bytesWithLineEndsParseLikeLines() {
        var parser = ResponseHeadParser()
        for line in ["HTTP/1.1 404 Not Found\r\n", "Content-Length: 0\r\n"] {
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { parser.consume($0) }
        }
        let outcome = Array("\r\n".utf8).withUnsafeBytes { parser.consume($0) }
        guard case .head(let head) = outcome else { Issue.record("no head"); return }
        #expect(head.status == .notFound)
        #expect(parser.version == "HTTP/1.1")
    }

    /// Common names come ready made (``CommonFieldNames``); every other spelling is validated and lowercased
    /// as before. Either way the field must be what the slow path makes: the server's case kept as the raw name.
    @Test(arguments: ["Content-Type", "content-type", "CONTENT-TYPE", "Content-type", "ETag", "etag", "Etag",
                      "Date", "WWW-Authenticate", "www-authenticate", "Access-Control-Allow-Origin",
                      "access-control-allow-origin", "X-Custom", "Datex", "Dat", "A-Name-Longer-Than-Thirty-Two-Bytes-In-All"])
    func commonNamesMakeTheSameFieldAsTheSlowPath(name: String) throws {
        guard case .head(let head) = parse(["HTTP/1.1 200 OK", "\(name): v", ""]) else { Issue.record("no head"); return }
        let field = try #require(head.headerFields.first)
        let expected = try #require(HTTPField.Name(name))
        #expect(field.name.rawName == expected.rawName)
        #expect(field.name.canonicalName == expected.canonicalName)
        #expect(field.value == "v")
    }

    @Test func onlyTheExactSpellingsAreReadyMade() {
        func lookup(_ name: String) -> HTTPField.Name? {
            Array(name.utf8).withUnsafeBufferPointer { CommonFieldNames.shared.slot(of: $0) }.map(CommonFieldNames.shared.name(at:))
        }
        #expect(lookup("Content-Type")?.rawName == "Content-Type")
        #expect(lookup("content-type")?.rawName == "content-type")
        #expect(lookup("etag")?.canonicalName == "etag")
        #expect(lookup("CONTENT-TYPE") == nil)
        #expect(lookup("Content-Typ") == nil)
        #expect(lookup("Content-Typf") == nil)
        #expect(lookup("") == nil)
        #expect(lookup(String(repeating: "a", count: 200)) == nil)
    }

    /// The word-at-a-time check must answer as the bytewise definition does: every byte value, at every place
    /// of a word and of the tail, alone among visible bytes, in values of 1 to 24 bytes.
    @Test func theVisibleASCIICheckAgreesWithTheBytewiseOne() {
        func bytewise(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 } }
        var checked = 0
        for length in 1...24 {
            for place in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var value = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    value[place] = byte
                    let fast = value.withUnsafeBytes { ResponseHeadParser.isVisibleASCII($0) }
                    if fast != bytewise(value) {
                        Issue.record("\(value) gave \(fast)")
                        return
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 256 * (1...24).reduce(0, +))
        // Neighbours that would carry or borrow into each other: 0xFF before 0x7E, 0x00 after 0x20, a tab before 0x7F.
        for pair: [UInt8] in [[0xFF, 0x7E], [0x20, 0x00], [0x09, 0x7F], [0x7E, 0x7E], [0x1F, 0x20]] {
            let value = [UInt8](repeating: 0x41, count: 6) + pair
            #expect(value.withUnsafeBytes { ResponseHeadParser.isVisibleASCII($0) } == bytewise(value))
        }
        #expect([UInt8]().withUnsafeBytes { ResponseHeadParser.isVisibleASCII($0) })
    }

    /// A value with a tab inside stays as it is (tabs are visible here), and one with a byte above 0x7E takes the
    /// lenient path and keeps its bytes, as before the word-at-a-time check.
    @Test func valuesThatAreNotVisibleASCIIKeepTheirBytes() throws {
        var parser = ResponseHeadParser()
        for line: [UInt8] in [Array("HTTP/1.1 200 OK\r\n".utf8), Array("X-Tab: a\tb c d e f g h i\r\n".utf8),
                              Array("X-Latin: caf".utf8) + [0xE9] + Array(" au lait, crème\r\n".utf8), Array("\r\n".utf8)] {
            if case .head(let head) = line.withUnsafeBytes({ parser.consume($0) }) {
                #expect(head.headerFields[HTTPField.Name("X-Tab")!] == "a\tb c d e f g h i")
                let latin = try #require(head.headerFields.first { $0.name.canonicalName == "x-latin" })
                #expect(Array(latin.value.utf8).count > 0)
                let expected = HTTPField(name: latin.name, lenientValue: Array("caf".utf8) + [0xE9] + Array(" au lait, crème".utf8))
                #expect(latin == expected)
                return
            }
        }
        Issue.record("no head")
    }
}
