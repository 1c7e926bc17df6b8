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
            Array(name.utf8).withUnsafeBufferPointer { CommonFieldNames.shared.name($0) }
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
}
