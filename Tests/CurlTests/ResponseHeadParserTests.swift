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

    @Test(arguments: ["HTTP/1.1 abc", "ICY 200 OK", "HTTP/1.1 20 OK", "garbage"])
    func malformedStatusLinesAreRefused(line: String) {
        guard case .malformed = parse([line]) else { Issue.record("accepted \(line)"); return }
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
}
