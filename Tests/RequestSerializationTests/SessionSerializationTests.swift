import CourierCore
import CourierRequestSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// What a session actually sends with each serializer, seen by `MockTransport`: the offline half
/// of the checklist items that httpbin checks in the integration tests.
@Suite("Serializers through a session")
struct SessionSerializationTests {
    /// A session with `serializer` in front of a transport that answers 200 and records.
    func session(_ serializer: any RequestSerializer) -> (Session, MockTransport) {
        let transport = MockTransport(always: .status(.ok))
        let session = Session(
            configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:5000"), requestSerializer: serializer),
            transport: transport
        )
        return (session, transport)
    }

    /// The body of a recorded request as text.
    func text(_ request: MockRequest?) -> String? {
        request?.body.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aFormPostSendsItsBodyAndContentType() async throws {
        // Checklist 1 and 2.
        let (session, transport) = session(HTTPRequestSerializer())
        _ = try await session.post("post", parameters: ["key": "value"]).response
        _ = try await session.post("post").response
        let requests = transport.requests
        #expect(requests.count == 2)
        #expect(requests.map { $0.head.headerFields[.contentType] } == ["application/x-www-form-urlencoded", "application/x-www-form-urlencoded"])
        #expect(text(requests.first) == "key=value")
        #expect(requests.last?.body == Data())
    }

    @Test(arguments: [HTTPRequest.Method.delete, .head, .get])
    func uriMethodsSendTheirParametersInTheQuery(method: HTTPRequest.Method) async throws {
        // Checklist 4 and 7.
        let (session, transport) = session(HTTPRequestSerializer())
        _ = try await session.request(method, "anything", parameters: ["key": "value"]).response
        let sent = try #require(transport.requests.first)
        #expect(sent.path == "/anything?key=value")
        #expect(sent.body == nil)
        #expect(sent.head.headerFields[.contentType] == nil)
    }

    @Test(arguments: [HTTPRequest.Method.put, .patch])
    func putAndPatchSendAFormBody(method: HTTPRequest.Method) async throws {
        // Checklist 8.
        let (session, transport) = session(HTTPRequestSerializer())
        _ = try await session.request(method, "anything", parameters: ["key": "value"]).response
        #expect(text(transport.requests.first) == "key=value")
    }

    @Test func perCallHeadersWinOverSerializerDefaults() async throws {
        // Checklist 28: X-Foo from the call, X-Bar from the serializer's defaults.
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("foo value", forHeader: "X-Foo")
        try serializer.setValue("bar value", forHeader: "X-Bar")
        let (session, transport) = session(serializer)
        _ = try await session.get("headers", headers: [.xFoo: "request value"]).response
        let sent = try #require(transport.requests.first)
        #expect(sent.head.headerFields[values: .xFoo] == ["request value"])
        #expect(sent.head.headerFields[values: .xBar] == ["bar value"])
        // Checklist 29 and 30: the defaults travel too.
        #expect(sent.head.headerFields[.acceptLanguage] == AcceptLanguage.current)
        #expect(sent.head.headerFields[.userAgent] == UserAgent.current())
    }

    @Test func aJSONPostSendsCompactJSON() async throws {
        // Checklist 32, 33 and 36.
        let (session, transport) = session(JSONRequestSerializer())
        _ = try await session.post("post", parameters: ["key": "value"]).response
        _ = try await session.post("post", parameters: [["key": "value"]]).response
        _ = try await session.post("post").response
        _ = try await session.get("get", parameters: ["key": "value"]).response
        let requests = transport.requests
        #expect(requests.map { text($0) } == [#"{"key":"value"}"#, #"[{"key":"value"}]"#, nil, nil])
        #expect(requests.map { $0.head.headerFields[.contentType] } == ["application/json", "application/json", nil, nil])
        #expect(requests.last?.path == "/get?key=value")
    }

    @Test func aPropertyListPostSendsXML() async throws {
        // Checklist 37.
        let (session, transport) = session(PropertyListRequestSerializer())
        _ = try await session.post("post", parameters: ["key": "value"]).response
        let sent = try #require(transport.requests.first)
        #expect(sent.head.headerFields[.contentType] == "application/x-plist")
        #expect(text(sent)?.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist") == true)
        #expect(text(sent)?.contains("<key>key</key>\n\t<string>value</string>") == true)
    }

    @Test(arguments: [HTTPRequest.Method.get, .post])
    func aThrowingQueryBuilderFailsTheCallWithItsErrorAndSendsNothing(method: HTTPRequest.Method) async throws {
        // Checklist 25, session side: the call fails with the builder's own error (inside a
        // CourierError at stage requestSerialization), no task exists, nothing reaches the
        // transport. AFNetworking calls its failure block asynchronously with a nil task; a
        // Courier call throws before it returns a task.
        let (session, transport) = session(HTTPRequestSerializer(queryStringBuilder: { _ in throw MarkerError(id: 25) }))
        do {
            _ = try session.request(method, "get", parameters: ["key": "value"])
            Issue.record("expected the call to fail before creating a task")
        } catch {
            #expect(error.stage == .requestSerialization)
            #expect(error.underlyingError as? MarkerError == MarkerError(id: 25))
            #expect(error.request?.path == "/get")
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(transport.requests.isEmpty)
        #expect(session.tasks.isEmpty)
    }

    @Test func invalidJSONFailsTheCallAndSendsNothing() async throws {
        // Checklist 34 and 35, session side: error, no request.
        let (session, transport) = session(JSONRequestSerializer())
        #expect {
            _ = try session.post("post", parameters: ["bad": .double(.nan)])
        } throws: { error in
            ((error as? CourierError)?.underlyingError as? RequestSerializationError)?.reason == .invalidJSON
        }
        #expect(transport.requests.isEmpty)
    }
}
