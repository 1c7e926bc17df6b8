@testable import CourierCurl
import HTTPTypes
import Testing

/// RFC 9112 section 6.3's rules on a response's `Content-Length`, which libcurl 7.88 does not keep (the chaos server's
/// /content-length, `ChaosTests.aContentLengthThatCannotFrameTheBodyIsMalformed`, shows what it does instead), and the
/// switch of protocols nobody asked for.
@Suite("Content-Length check")
struct ContentLengthCheckTests {
    func head(_ values: [String], transferEncoding: String? = nil, status: Int = 200) -> HTTPResponse {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .contentLength, value: value)) }
        if let transferEncoding { fields.append(HTTPField(name: .transferEncoding, value: transferEncoding)) }
        return HTTPResponse(status: .init(code: status), headerFields: fields)
    }

    func check(_ head: HTTPResponse, _ method: HTTPRequest.Method = .get) -> String? {
        ContentLengthCheck.problem(in: head, method: method, reading: ContentLengthCheck.read(head.headerFields))
    }

    @Test(arguments: [([], nil), (["0"], 0), (["10"], 10), (["10", "10"], 10), (["10, 10"], 10), ([" 10 ,\t10 "], 10),
                      (["9223372036854775807"], Int64.max), (["007"], 7)] as [([String], Int64?)])
    func oneCountOrNoneFramesTheBody(values: [String], count: Int64?) {
        #expect(check(head(values)) == nil, "\(values)")
        #expect(ContentLengthCheck.read(head(values).headerFields).count == count, "\(values)")
    }

    @Test(arguments: [["0x5"], ["+5"], ["-5"], ["5 5"], ["5."], ["five"], [""], ["5,"], [",5"], ["9223372036854775808"],
                      ["99999999999999999999999"], ["٥"]])
    func aValueThatIsNoCountIsAProblem(values: [String]) throws {
        let problem = try #require(check(head(values)), "\(values)")
        #expect(problem.contains("not a count"), "\(problem)")
    }

    @Test(arguments: [["5", "10"], ["5, 10"], ["10", "10, 5"]])
    func countsThatDisagreeAreAProblem(values: [String]) throws {
        let problem = try #require(check(head(values)), "\(values)")
        #expect(problem.contains("disagree"), "\(problem)")
    }

    /// A `Transfer-Encoding` frames the body whatever the length says (RFC 9112 section 6.3, rule 3), so the length
    /// is neither checked nor announced; the answer to a HEAD, a 204 or a 304 has no body to frame (rule 1).
    @Test func bodiesTheLengthDoesNotFrameAreNotChecked() {
        #expect(check(head(["0x5"], transferEncoding: "chunked")) == nil)
        #expect(check(head(["5", "10"], transferEncoding: "chunked"), .post) == nil)
        #expect(ContentLengthCheck.read(head(["3"], transferEncoding: "chunked").headerFields) == .transferCoding(lastIsChunked: true, besideLength: true))
        #expect(ContentLengthCheck.read(head([], transferEncoding: "chunked").headerFields) == .transferCoding(lastIsChunked: true, besideLength: false))
        #expect(ContentLengthCheck.read(head(["3"], transferEncoding: "chunked").headerFields).forbidsReuse(version: "HTTP/1.1"))
        #expect(!ContentLengthCheck.read(head([], transferEncoding: "chunked").headerFields).forbidsReuse(version: "HTTP/1.1"))
        #expect(!ContentLengthCheck.read(head(["3"]).headerFields).forbidsReuse(version: "HTTP/1.1"))
        // HTTP/1.0 has no transfer codings: a head with one forbids its connection's reuse, with a length or not.
        let chunked = ContentLengthCheck.read(head([], transferEncoding: "chunked").headerFields)
        #expect(chunked.forbidsReuse(version: "HTTP/1.0") && !chunked.forbidsReuse(version: "HTTP/1.1"))
        #expect(ContentLengthCheck.read(head(["3"], transferEncoding: "gzip").headerFields).forbidsReuse(version: "HTTP/1.1"))
        #expect(!ContentLengthCheck.read(head(["3"]).headerFields).forbidsReuse(version: "HTTP/1.0"))
        #expect(check(head(["0x5"]), .head) == nil)
        #expect(check(head(["0x5"], status: 204)) == nil)
        #expect(check(head(["5", "10"], status: 304)) == nil)
        #expect(check(head(["0x5"], status: 404)) != nil)
    }

    /// A transfer coding named after the lengths still frames the body; a problem found first is not kept.
    @Test func aTransferEncodingAfterTheLengthsStillFramesTheBody() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentLength, value: "0x5"))
        fields.append(HTTPField(name: .transferEncoding, value: "chunked"))
        #expect(ContentLengthCheck.read(fields) == .transferCoding(lastIsChunked: true, besideLength: true))
    }

    /// The reading names the last coding of the last `Transfer-Encoding` field that names one, which is what
    /// ``BodyFraming`` frames by: blank fields and empty list elements name none.
    @Test(arguments: [
        (["chunked"], true), (["gzip"], false), (["gzip, chunked"], true), (["chunked, gzip"], false),
        (["gzip", "chunked"], true), (["chunked", "gzip"], false), (["chunked", ""], true), (["chunked", " , "], true),
        ([""], false), (["chunked,,"], true), (["CHUNKED"], true), (["chun\u{212A}ed"], false),
    ] as [([String], Bool)])
    func theLastCodingNamedIsRead(values: [String], lastIsChunked: Bool) {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentLength, value: "5"))
        for value in values { fields.append(HTTPField(name: .transferEncoding, value: value)) }
        #expect(ContentLengthCheck.read(fields) == .transferCoding(lastIsChunked: lastIsChunked, besideLength: true), "\(values)")
    }

    /// Courier sends no `Upgrade`, so a 101 is a switch nobody asked for, whatever the method: what follows is not HTTP.
    @Test func aSwitchOfProtocolsIsAProblem() throws {
        for method in [HTTPRequest.Method.get, .head, .post] {
            let problem = try #require(check(head([], status: 101), method), "\(method)")
            #expect(problem.contains("101"), "\(problem)")
        }
    }
}
