@testable import CourierCurl
import HTTPTypes
import Testing

/// RFC 9112 section 6.3's rules on a response's `Content-Length`, which libcurl 7.88 does not keep (the chaos server's
/// /content-length, `ChaosTests.aContentLengthThatCannotFrameTheBodyIsMalformed`, shows what it does instead).
@Suite("Content-Length check")
struct ContentLengthCheckTests {
    func head(_ values: [String], transferEncoding: String? = nil, status: Int = 200) -> HTTPResponse {
        var fields = HTTPFields()
        for value in values { fields.append(HTTPField(name: .contentLength, value: value)) }
        if let transferEncoding { fields.append(HTTPField(name: .transferEncoding, value: transferEncoding)) }
        return HTTPResponse(status: .init(code: status), headerFields: fields)
    }

    @Test(arguments: [[], ["0"], ["10"], ["10", "10"], ["10, 10"], [" 10 ,\t10 "], ["9223372036854775807"], ["007"]])
    func oneCountOrNoneFramesTheBody(values: [String]) {
        #expect(ContentLengthCheck.problem(in: head(values), method: .get) == nil, "\(values)")
    }

    @Test(arguments: [["0x5"], ["+5"], ["-5"], ["5 5"], ["5."], ["five"], [""], ["5,"], [",5"], ["9223372036854775808"],
                      ["99999999999999999999999"], ["٥"]])
    func aValueThatIsNoCountIsAProblem(values: [String]) throws {
        let problem = try #require(ContentLengthCheck.problem(in: head(values), method: .get), "\(values)")
        #expect(problem.contains("not a count"), "\(problem)")
    }

    @Test(arguments: [["5", "10"], ["5, 10"], ["10", "10, 5"]])
    func countsThatDisagreeAreAProblem(values: [String]) throws {
        let problem = try #require(ContentLengthCheck.problem(in: head(values), method: .get), "\(values)")
        #expect(problem.contains("disagree"), "\(problem)")
    }

    /// A `Transfer-Encoding` frames the body whatever the length says (RFC 9112 section 6.3, rule 3), and the answer
    /// to a HEAD, a 204 or a 304 has no body to frame (rule 1): none of them is checked.
    @Test func bodiesTheLengthDoesNotFrameAreNotChecked() {
        #expect(ContentLengthCheck.problem(in: head(["0x5"], transferEncoding: "chunked"), method: .get) == nil)
        #expect(ContentLengthCheck.problem(in: head(["5", "10"], transferEncoding: "chunked"), method: .post) == nil)
        #expect(ContentLengthCheck.problem(in: head(["0x5"]), method: .head) == nil)
        #expect(ContentLengthCheck.problem(in: head(["0x5"], status: 204), method: .get) == nil)
        #expect(ContentLengthCheck.problem(in: head(["5", "10"], status: 304), method: .get) == nil)
        #expect(ContentLengthCheck.problem(in: head(["0x5"], status: 404), method: .get) != nil)
    }

    /// A transfer coding named after the lengths still frames the body; a problem found first is not kept.
    @Test func aTransferEncodingAfterTheLengthsStillFramesTheBody() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentLength, value: "0x5"))
        fields.append(HTTPField(name: .transferEncoding, value: "chunked"))
        #expect(ContentLengthCheck.problem(in: fields) == nil)
    }
}
