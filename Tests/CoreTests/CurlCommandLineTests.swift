import CourierCore
import FoundationEssentials
import HTTPTypes
import Testing

/// `CurlCommandLine` (issue 13, part 6): the words, the quoting and the redaction. The integration suite runs
/// the lines with the real `curl` against httpbin.
@Suite struct CurlCommandLineTests {
    private func request(_ method: HTTPRequest.Method, _ path: String = "/p?q=1", authority: String = "api.test") -> HTTPRequest {
        HTTPRequest(method: method, scheme: "https", authority: authority, path: path)
    }

    /// The example in the doc comment, word for word.
    @Test func docExample() {
        var request = HTTPRequest(method: .post, scheme: "https", authority: "api.test", path: "/users")
        request.headerFields[.contentType] = "application/json"
        request.headerFields[.authorization] = "Bearer s3cret"
        let command = CurlCommandLine(request: request, body: Data(#"{"name":"Ada"}"#.utf8), redactsCredentials: true)
        #expect(command.description
            == #"curl https://api.test/users -H 'Content-Type: application/json' -H 'Authorization: REDACTED' --data-raw '{"name":"Ada"}'"#)
    }

    @Test func methodsAsCurlInfersThem() {
        #expect(CurlCommandLine(request: request(.get)).words == ["curl", "https://api.test/p?q=1"])
        #expect(CurlCommandLine(request: request(.head)).words == ["curl", "-I", "https://api.test/p?q=1"])
        #expect(CurlCommandLine(request: request(.post), body: Data("a".utf8)).words == ["curl", "https://api.test/p?q=1", "--data-raw", "a"])
        #expect(CurlCommandLine(request: request(.post)).words == ["curl", "-X", "POST", "https://api.test/p?q=1"])
        #expect(CurlCommandLine(request: request(.delete)).words == ["curl", "-X", "DELETE", "https://api.test/p?q=1"])
        #expect(CurlCommandLine(request: request(.get), body: Data("b".utf8)).words.prefix(3) == ["curl", "-X", "GET"])
    }

    @Test func headersInOrderEmptyValuesAndQuoting() {
        var head = request(.get, "/it's")
        head.headerFields.append(HTTPField(name: .accept, value: "*/*"))
        head.headerFields.append(HTTPField(name: HTTPField.Name("X-Empty")!, value: ""))
        head.headerFields.append(HTTPField(name: .accept, value: "text/plain"))
        let command = CurlCommandLine(request: head)
        #expect(command.words == ["curl", "https://api.test/it's", "-H", "Accept: */*", "-H", "X-Empty;", "-H", "Accept: text/plain"])
        #expect(command.description == #"curl 'https://api.test/it'\''s' -H 'Accept: */*' -H 'X-Empty;' -H 'Accept: text/plain'"#)
    }

    @Test func redaction() {
        var head = request(.get, authority: "ada:pa55@api.test")
        head.headerFields[.authorization] = "Basic YWRhOnBhNTU="
        head.headerFields[.proxyAuthorization] = "Basic eA=="
        head.headerFields[.cookie] = "session=1"
        head.headerFields[.accept] = "*/*"
        let plain = CurlCommandLine(request: head).description
        #expect(plain.contains("pa55") && plain.contains("YWRhOnBhNTU=") && plain.contains("session=1"))
        let redacted = CurlCommandLine(request: head, redactsCredentials: true)
        #expect(redacted.words == [
            "curl", "https://ada:REDACTED@api.test/p?q=1", "-H", "Authorization: REDACTED", "-H", "Proxy-Authorization: REDACTED",
            "-H", "Cookie: REDACTED", "-H", "Accept: */*",
        ])
    }

    @Test func aBodyThatIsNotUTF8IsQuotedByteForByte() {
        let command = CurlCommandLine(request: request(.put), body: Data([0x41, 0xFF, 0x27, 0x5C, 0x0A, 0xC3]))
        #expect(command.words[command.words.count - 2] == "--data-binary")
        #expect(command.description.hasSuffix(#"--data-binary $'A\xff\'\\\x0a\xc3'"#))
    }
}
