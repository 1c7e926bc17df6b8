@testable import CourierCLI
import CourierCore
import CourierCurl
import HTTPTypes
import Testing

@Suite("Exit codes and error lines")
struct ExitStatusTests {
    @Test(arguments: [(200, 0), (204, 0), (299, 0), (301, 3), (304, 3), (404, 4), (418, 4), (500, 5), (503, 5), (101, 1), (600, 1)])
    func finalStatusClassesMapToExitCodes(code: Int, exit: Int32) {
        #expect(ExitStatus.code(for: HTTPResponse.Status(code: code)) == exit)
    }

    private func error(_ underlying: any Error) -> CourierError {
        CourierError(stage: .transport, request: HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/x"), underlyingError: underlying)
    }

    @Test func courierErrorsMapToExitCodes() {
        #expect(ExitStatus.code(for: error(TransportError(.timedOut, message: "slow", underlyingCode: 28))) == 2)
        #expect(ExitStatus.code(for: error(RedirectError(reason: .tooManyRedirects, history: [], limit: 3, location: "/a"))) == 6)
        #expect(ExitStatus.code(for: error(TransportError(.tlsFailure, message: "bad cert", underlyingCode: 60))) == 7)
        #expect(ExitStatus.code(for: error(TransportError(.cannotConnect, message: "refused", underlyingCode: 7))) == 1)
        #expect(ExitStatus.code(for: error(TransportError(.nameResolution, message: "no such host"))) == 1)
        #expect(ExitStatus.code(for: error(RedirectError(reason: .invalidLocation, history: [], location: "::"))) == 1)
        #expect(ExitStatus.code(for: error(CancellationError())) == 1)
        #expect(ExitStatus.code(for: CLIError("bad argument")) == 1)
        #expect(ExitStatus.code(for: CLIError("kept", exitCode: 2)) == 2)
    }

    @Test func errorsAreOneLineWithAnOptionalHint() {
        let timeout = error(TransportError(.timedOut, message: "Operation timed out after 500 milliseconds", underlyingCode: 28))
        #expect(ErrorReport.lines(for: timeout, terminal: false) == [
            "courier: error: GET http://h/x: timed out: Operation timed out after 500 milliseconds (code 28)",
            "courier: hint: allow more time with --timeout SECONDS (whole exchange) or --connect-timeout SECONDS",
        ])
        let refused = error(TransportError(.cannotConnect, message: "Couldn't connect\nto server", underlyingCode: 7))
        #expect(ErrorReport.lines(for: refused, terminal: true) == ["courier: error: GET http://h/x: could not connect: Couldn't connect to server (code 7)"])
        #expect(ErrorReport.lines(for: CLIError("no URL given", hint: "see courier --help"), terminal: false) == [
            "courier: error: no URL given",
            "courier: hint: see courier --help",
        ])
    }

    @Test func tlsAndRedirectFailuresCarryAHint() {
        let tls = ErrorReport.describe(error(TransportError(.tlsFailure, message: "unable to get local issuer certificate", underlyingCode: 60)))
        #expect(tls.hint == "to trust a private certificate authority, pass its PEM file with --cacert FILE")
        let redirects = ErrorReport.describe(error(RedirectError(reason: .tooManyRedirects, history: [], limit: 2, location: "/get")))
        #expect(redirects.message == "GET http://h/x: stopped after 2 redirects (the limit); the last one pointed to /get")
        #expect(redirects.hint == "allow more with --max-redirects N, or see each hop with -v --max-redirects 0")
    }
}

@Suite("curl command")
struct CurlCommandTests {
    @Test(arguments: [
        ("simple", "simple"),
        ("http://h:80/a?b=c", "'http://h:80/a?b=c'"),
        ("a b", "'a b'"),
        ("it's", #"'it'\''s'"#),
        ("", "''"),
        ("$HOME", "'$HOME'"),
        ("x;rm -rf /", "'x;rm -rf /'"),
        ("user:pa@ss", "user:pa@ss"),
        ("--max-time", "--max-time"),
        ("é", "'é'"),
    ])
    func wordsAreQuotedOnlyWhenNeeded(word: String, quoted: String) {
        #expect(CurlCommand.shellQuoted(word) == quoted)
    }

    @Test func aJSONPutWithEverything() throws {
        let plan = try RequestPlan.build(
            line: RequestLine.parse(["put", "http://127.0.0.1:18080/put?x=1", "a==1", "msg=it's", "n:=3", "X-Empty:"]),
            encoding: nil, authorization: .basic(user: "bob", password: "pa ss")
        )
        var options = CurlCommand.Options()
        options.timeout = 2.5
        options.connectTimeout = 1
        options.httpVersion = .http2
        options.maximumRedirects = 3
        #expect(CurlCommand(plan: plan, options: options).commandLine == """
            curl -X PUT 'http://127.0.0.1:18080/put?x=1&a=1' -u 'bob:pa ss' -H 'User-Agent: courier/\(CourierVersion.string)' \
            -H 'Accept: application/json, */*;q=0.5' -H 'X-Empty;' -H 'Content-Type: application/json' \
            --data-raw '{"msg":"it'\\''s","n":3}' -L --max-redirs 3 --http2-prior-knowledge --max-time 2.5 \
            --connect-timeout 1 --compressed
            """)
    }

    @Test func aGetFollowsNoRedirectsWhenToldAndAPostImpliesItsMethod() throws {
        let get = try RequestPlan.build(line: RequestLine.parse(["https://h/"]), encoding: nil, authorization: .bearer("t"))
        var options = CurlCommand.Options()
        options.maximumRedirects = 0
        options.httpVersion = .http2
        options.verbose = true
        #expect(CurlCommand(plan: get, options: options).words == [
            "curl", "-v", "https://h/", "-H", "User-Agent: courier/\(CourierVersion.string)", "-H", "Accept: */*",
            "-H", "Authorization: Bearer t", "--http2", "--compressed",
        ])
        let post = try RequestPlan.build(line: RequestLine.parse(["http://h/", "a=1"]), encoding: .form, authorization: nil)
        #expect(CurlCommand(plan: post, options: CurlCommand.Options()).words.prefix(2) == ["curl", "http://h/"])
        #expect(CurlCommand(plan: post, options: CurlCommand.Options()).words.contains("--data-raw"))
    }

    @Test func downloadsNameTheFileAndResume() throws {
        let plan = try RequestPlan.build(line: RequestLine.parse(["HEAD", "http://h/f.bin"]), encoding: nil, authorization: nil)
        var options = CurlCommand.Options()
        options.download = true
        #expect(Array(CurlCommand(plan: plan, options: options).words.suffix(5)) == ["-L", "--max-redirs", "10", "-O", "-J"])
        options.resume = true
        options.proxy = "http://127.0.0.1:3128"
        options.proxyCAFile = "/tmp/proxy-ca.pem"
        options.unixSocket = "/tmp/s.sock"
        options.caFile = "/tmp/ca.pem"
        options.httpVersion = .http1_1
        #expect(CurlCommand(plan: plan, options: options).commandLine == """
            curl -I http://h/f.bin -H 'User-Agent: courier/\(CourierVersion.string)' -H 'Accept: */*' -L --max-redirs 10 \
            --http1.1 --proxy http://127.0.0.1:3128 --noproxy '' --proxy-cacert /tmp/proxy-ca.pem --unix-socket /tmp/s.sock \
            --cacert /tmp/ca.pem -O -C -
            """)
    }
}

@Suite("Heads, timing and pretty JSON")
struct FormattingTests {
    @Test func requestAndResponseHeads() {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:8080", path: "/get?a=1")
        request.headerFields[.accept] = "*/*"
        #expect(HeadFormatter.format(request, version: "HTTP/1.1", terminal: false) == Array("GET /get?a=1 HTTP/1.1\nHost: 127.0.0.1:8080\nAccept: */*\n\n".utf8))
        var response = HTTPResponse(status: .notFound)
        response.headerFields[.contentLength] = "0"
        #expect(HeadFormatter.format(response, version: nil, terminal: true) == Array("HTTP 404 Not Found\nContent-Length: 0\n\n".utf8))
    }

    @Test func theVersionShowsOnlyWhenCertain() {
        #expect(HeadFormatter.knownVersion(scheme: "http", preference: .automatic) == "HTTP/1.1")
        #expect(HeadFormatter.knownVersion(scheme: "http", preference: .http2) == "HTTP/2")
        #expect(HeadFormatter.knownVersion(scheme: "https", preference: .http1_1) == "HTTP/1.1")
        #expect(HeadFormatter.knownVersion(scheme: "https", preference: .automatic) == nil)
        #expect(HeadFormatter.knownVersion(scheme: "https", preference: .http2) == nil)
    }

    @Test func timingIsAnAlignedTable() {
        let metrics = TransferMetrics(
            domainLookup: .microseconds(120), connect: .microseconds(340), firstByte: .microseconds(4_249),
            total: .milliseconds(12), bytesSent: 5, bytesReceived: 312, httpVersion: "HTTP/1.1",
            remoteAddress: "127.0.0.1:18080", reusedConnection: false
        )
        #expect(TimingReport.format(metrics) == """
            DNS lookup         0.1 ms
            connect            0.3 ms
            TLS handshake      -
            first byte         4.2 ms
            total              12.0 ms
            bytes              sent 5, received 312
            HTTP version       HTTP/1.1
            remote address     127.0.0.1:18080
            reused connection  no

            """)
        #expect(TimingReport.milliseconds(.seconds(2)) == "2000.0 ms")
        #expect(TimingReport.milliseconds(.microseconds(50)) == "0.1 ms")
    }

    private func pretty(_ json: String) -> String? {
        JSONPrettyPrinter.format(Array(json.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func prettyJSONKeepsKeyOrderAndExactTokens() {
        #expect(pretty(#"{"b":1,"a":[true,{},[]],"s":"x,\"y\":{z}","n":1.50e3}"#) == """
            {
              "b": 1,
              "a": [
                true,
                {},
                []
              ],
              "s": "x,\\"y\\":{z}",
              "n": 1.50e3
            }

            """)
        #expect(pretty("  [ ]  ") == "[]\n")
        #expect(pretty("\"text\"") == "\"text\"\n")
    }

    @Test func invalidJSONIsNotPrettyPrinted() {
        #expect(pretty("{\"a\":1") == nil)
        #expect(pretty("<html>") == nil)
        #expect(pretty("") == nil)
    }

    @Test func jsonContentTypes() {
        #expect(ContentType.isJSON("application/json"))
        #expect(ContentType.isJSON("Application/JSON; charset=utf-8"))
        #expect(ContentType.isJSON("application/problem+json"))
        #expect(!ContentType.isJSON("text/html"))
        #expect(!ContentType.isJSON(nil))
    }
}

@Suite("Binary detection")
struct BinaryDetectionTests {
    @Test func textIsNotBinary() {
        #expect(!BinaryDetection.looksBinary(ArraySlice("hello, wörld\n".utf8)))
        #expect(!BinaryDetection.looksBinary([]))
    }

    @Test func nulOrInvalidUTF8IsBinary() {
        #expect(BinaryDetection.looksBinary([0x41, 0x00, 0x42]))
        #expect(BinaryDetection.looksBinary([0xFF, 0xFE, 0x41, 0x42, 0x43, 0x44, 0x45]))
    }

    @Test func aCharacterCutAtTheEndOfAChunkIsStillText() {
        let text = Array("abcdé".utf8)
        #expect(!BinaryDetection.looksBinary(text.dropLast()[...]))
    }
}
