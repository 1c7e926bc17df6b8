@testable import CourierLogging
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import InMemoryLogging
import Logging
import Testing

/// `RequestLogging` in a session over `MockTransport`, its lines caught by swift-log's `InMemoryLogHandler`.
@Suite struct RequestLoggingTests {
    private func session(_ level: Logger.Level, _ transport: MockTransport, maximumBodyBytes: Int = 4096,
                         redacting: Set<HTTPField.Name> = [], extra: (inout SessionConfiguration) -> Void = { _ in }) -> (Session, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "test", factory: { _ in handler })
        logger.logLevel = level
        var configuration = SessionConfiguration(baseURL: URL(string: "https://api.test"))
        extra(&configuration)
        configuration.addLogging(RequestLogging(logger: logger, redacting: redacting, maximumBodyBytes: maximumBodyBytes))
        return (Session(configuration: configuration, transport: transport), handler)
    }

    private func request(_ path: String, authority: String = "user:secret@api.test", headers: HTTPFields = [:]) -> HTTPRequest {
        HTTPRequest(method: .get, scheme: "https", authority: authority, path: path, headerFields: headers)
    }

    @Test func oneLineAtInfoPerCallWithItsFigures() async throws {
        let (session, log) = session(.info, MockTransport(always: .text("hello")))
        _ = try await session.data(for: request("/items?token=abc&page=2"))
        let entries = log.entries
        #expect(entries.count == 1)
        let line = try #require(entries.first)
        #expect(line.level == .info)
        #expect("\(line.message)".hasPrefix("GET https://api.test/items?token=REDACTED&page=REDACTED 200 in "))
        #expect(line.value("http.response.status_code") == "200")
        #expect(line.value("url.full") == "https://api.test/items?token=REDACTED&page=REDACTED")
        #expect(line.value("http.response.body.size") == "5")
        #expect(line.value("courier.redirects") == "0")
        #expect(line.value("courier.retries") == "0")
        #expect(line.metadata["courier.request_id"] != nil)
        #expect(line.metadata["courier.duration_ms"] != nil)
        // Nothing of the credentials, anywhere.
        #expect(!"\(entries)".contains("secret") && !"\(entries)".contains("abc"))
    }

    @Test func redirectsAreCountedAndHeadsWrittenRedactedAtDebug() async throws {
        let transport = MockTransport { request in
            request.pathWithoutQuery == "/old" ? .redirect(to: "/new") : .text("ok")
        }
        let (session, log) = session(.debug, transport, redacting: [HTTPField.Name("X-Api-Key")!])
        _ = try await session.data(for: request("/old", headers: [.authorization: "Bearer t0k3n", .cookie: "sid=s3", HTTPField.Name("X-Api-Key")!: "k3y", .accept: "text/plain"]))
        let entries = log.entries
        let summary = try #require(entries.last)
        #expect(summary.level == .info)
        #expect(summary.value("courier.redirects") == "1")
        let requestHeads = entries.filter { $0.metadata["http.request.header"] != nil }
        #expect(requestHeads.count == 2)   // one per hop
        let fields = "\(requestHeads[0].metadata["http.request.header"]!)"
        #expect(fields.contains("Authorization: REDACTED") && fields.contains("Cookie: REDACTED") && fields.contains("X-Api-Key: REDACTED"))
        #expect(fields.contains("Accept: text/plain"))
        #expect(!"\(entries)".contains("t0k3n") && !"\(entries)".contains("s3") && !"\(entries)".contains("k3y"))
        #expect(entries.contains { "\($0.message)".hasPrefix("redirect 302 to https://api.test/new") })
        // All lines of the call share its id.
        #expect(Set(entries.compactMap { $0.metadata["courier.request_id"].map { "\($0)" } }).count == 1)
    }

    @Test func aCallWithoutAnAnswerIsAnErrorWithItsStage() async throws {
        let (session, log) = session(.info, MockTransport(always: .failure(TransportError(.cannotConnect, message: "refused"))))
        await #expect(throws: CourierError.self) { try await session.data(for: request("/down")) }
        let line = try #require(log.entries.last)
        #expect(line.level == .error)
        #expect(line.value("error.type") == "connection_failed")
        #expect(line.value("courier.error.stage") == "transport")
        #expect("\(line.message)".contains("failed at transport"))
        #expect(line.error is CourierError)
    }

    @Test func aRefusedAnswerIsAWarningWithItsStatus() async throws {
        struct Refuse: Interceptor {
            func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
                let response = try await next(request, body: body, context: context)
                throw CourierError(stage: .responseSerialization, request: request, response: response.head, underlyingError: CancellationErrorStandIn())
            }
        }
        struct CancellationErrorStandIn: Error {}
        let (session, log) = session(.info, MockTransport(always: .status(.notFound))) { $0.interceptors.append(Refuse()) }
        await #expect(throws: CourierError.self) { try await session.data(for: request("/missing")) }
        let line = try #require(log.entries.last)
        #expect(line.level == .warning)
        #expect(line.value("http.response.status_code") == "404")
    }

    @Test func aCancelledCallStaysAtTheSummaryLevel() async throws {
        let (session, log) = session(.info, MockTransport(always: .text("late", delay: .seconds(30))))
        let call = Task { try await session.data(for: request("/slow")) }
        try await Task.sleep(for: .milliseconds(50))
        call.cancel()
        _ = await call.result
        let line = try #require(log.entries.last)
        #expect(line.level == .info)
        #expect("\(line.message)".contains("cancelled"))
    }

    @Test func bodiesAtTraceUpToTheBound() async throws {
        let big = String(repeating: "x", count: 100)
        let transport = MockTransport(always: .chunks([Data("{\"a\":\n".utf8), Data(big.utf8)]))
        let (session, log) = session(.trace, transport, maximumBodyBytes: 16)
        let response = try await session.data(for: HTTPRequest(method: .post, scheme: "https", authority: "api.test", path: "/up"), body: Body("name=ada"))
        #expect(response.data.count == 106)   // the reader got every byte
        let bodies = log.entries.filter { $0.metadata["courier.body.direction"] != nil }
        #expect(bodies.map { "\($0.message)" } == [
            "request body, 8 bytes: \"name=ada\"",
            "response body, first 16 bytes: \"{\"a\":\\nxxxxxxxxxx\"",
        ])
        #expect(bodies.allSatisfy { $0.level == .trace })
    }

    @Test func noBodyWorkAboveTrace() async throws {
        let transport = MockTransport(always: .text("hello"))
        let (session, log) = session(.debug, transport)
        _ = try await session.data(for: request("/"), body: Body("x"))
        #expect(log.entries.allSatisfy { $0.metadata["courier.body.direction"] == nil })
    }

    @Test func aSessionThatLogsNoBodiesCarriesNoBodyInterceptor() {
        for (level, interceptors) in [(Logger.Level.info, 0), (.debug, 0), (.trace, 1)] {
            var logger = Logger(label: "x")
            logger.logLevel = level
            var configuration = SessionConfiguration()
            configuration.addLogging(RequestLogging(logger: logger))
            #expect(configuration.networkInterceptors.count == interceptors)
        }
    }

    @Test func nothingFromTheWireBreaksALineOrReachesATerminalRaw() {
        #expect(LogText.escaped("plain text, é ok") == "plain text, é ok")
        #expect(LogText.escaped("a\u{1B}[31mred\u{9B}2J\u{2028}b\r\n") == "a\\u{1b}[31mred\\u{9b}2J\\u{2028}b\\r\\n")
        let redaction = Redaction(fieldNames: RequestLogging.defaultRedactedFieldNames, logsQueryValues: false)
        // swift-http-types drops C0 controls from a value already; C1 controls (bytes C2 80–9F) it keeps.
        #expect(redaction.fields([HTTPField.Name("X-Evil")!: "\u{9B}31mred"]) == ["X-Evil: \\u{9b}31mred"])
        #expect(redaction.redactingHeadLines("X-Evil: \u{9B}1m") == "X-Evil: \\u{9b}1m")
        #expect(redaction.url(of: HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/a\u{2029}b")) == "http://x/a\\u{2029}b")
    }

    @Test func aCharacterCutByTheBoundIsLeftOut() {
        #expect(BodySample.render(Array("café".utf8).dropLast()) == "\"caf\"…")
        #expect(BodySample.render(Array("a€".utf8).dropLast(2)) == "\"a\"…")
        #expect(BodySample.render([0x61, 0x80]) == "<binary> 6180")   // a stray continuation byte is no cut character
        #expect(BodySample.incompleteTail(Array("€".utf8)) == 0)
    }

    @Test func binaryBodiesAsHex() {
        #expect(BodySample.render([0xFF, 0x00, 0x10]) == "<binary> ff0010")
        #expect(BodySample.render(Array("a\tb\u{1}".utf8)) == "\"a\\tb\\u{1}\"")
    }

    @Test func transportDiagnosticsAreRedactedAndTagged() {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "curl", factory: { _ in handler })
        logger.logLevel = .trace
        let diagnostics = RequestLogging(logger: logger).transportDiagnostics
        diagnostics(TransportDiagnostic(kind: .headerOut, text: "GET /a?key=v HTTP/1.1\r\nHost: x\r\nAuthorization: Basic dTpw\r\ncookie: a=b", taskID: 7, sessionID: 2))
        diagnostics(TransportDiagnostic(kind: .info, text: "Connected to x"))
        let entries = handler.entries
        #expect(entries.count == 2)
        #expect("\(entries[0].message)" == "GET /a?key=REDACTED HTTP/1.1\nHost: x\nAuthorization: REDACTED\ncookie: REDACTED")
        #expect(entries[0].value("courier.request_id") == "2.7")
        #expect(entries[0].value("courier.transport.kind") == "header-out")
        logger.logLevel = .debug
        RequestLogging(logger: logger).transportDiagnostics(TransportDiagnostic(kind: .info, text: "quiet"))
        #expect(handler.entries.count == 2)
    }
}

@Suite struct RedactionTests {
    let redaction = Redaction(fieldNames: RequestLogging.defaultRedactedFieldNames, logsQueryValues: false)

    @Test(arguments: [
        ("/a?x=1&y&z=", "/a?x=REDACTED&y&z=REDACTED"),
        ("/a#frag?x=1", "/a"),
        ("/a?x=1#f", "/a?x=REDACTED"),
        ("/", "/"),
        ("/a?", "/a?"),
        ("/a?&&", "/a?&&"),
    ])
    func queryValues(path: String, expected: String) {
        #expect(redaction.target(path) == expected)
    }

    @Test func keepsQueryValuesWhenAsked() {
        #expect(Redaction(fieldNames: [], logsQueryValues: true).target("/a?x=1#f") == "/a?x=1")
    }

    @Test func dropsUserInformation() {
        let request = HTTPRequest(method: .get, scheme: "http", authority: "u:p@w@[::1]:8080", path: "/p")
        #expect(redaction.url(of: request) == "http://[::1]:8080/p")
    }

    @Test func callRecordSumsExchanges() {
        var record = CallRecord()
        let start = ContinuousClock.now
        record.resumed(at: start)
        record.resumed(at: start + .seconds(5))
        var metrics = TransferMetrics()
        metrics.bytesReceived = 10
        metrics.reusedConnection = false
        record.measured(metrics)
        metrics.reusedConnection = true
        record.measured(metrics)
        record.redirected()
        #expect(record.bytesReceived == 20 && record.reusedConnection == true && record.redirects == 1)
        #expect(record.duration(until: start + .milliseconds(1234)) == .milliseconds(1234))
        #expect(CallRecord.milliseconds(.microseconds(12_345)) == "12.3")
        // Saturating, where the conversion of the largest durations to an Int trapped (a retry delay of any size).
        #expect(CallRecord.milliseconds(.seconds(Int64.max)) == "900000000000000000.0")
        #expect(CallRecord.milliseconds(.seconds(Int64.min)) == "-900000000000000000.0")
        #expect(CallRecord.milliseconds(.zero) == "0.0")
    }
}

extension InMemoryLogHandler.Entry {
    /// A metadata value as text, however it was stored (`.string` or `.stringConvertible`).
    func value(_ key: String) -> String? { metadata[key].map { "\($0)" } }
}
