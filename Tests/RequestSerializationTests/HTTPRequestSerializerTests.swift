import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("HTTP request serializer")
struct HTTPRequestSerializerTests {
    let serializer = HTTPRequestSerializer()

    // MARK: Body methods

    @Test func postParametersBecomeAFormBody() async throws {
        // Checklist 1 (offline part).
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["key": "value"])
        #expect(serialized.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(serialized.request.url?.absoluteString == "http://example.com/post")
        #expect(try await text(of: serialized.body) == "key=value")
        #expect(serialized.body?.length == .known(9))
    }

    @Test func postWithoutParametersStillGetsAnEmptyFormBody() async throws {
        // Checklist 2: the same Content-Type and a present, 0-byte body.
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: nil)
        #expect(serialized.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        let body = try #require(serialized.body)
        #expect(body.length == .known(0))
        #expect(try await body.collect(upTo: 16).isEmpty)
    }

    @Test func anExistingContentTypeIsKept() async throws {
        // Checklist 3.
        let request = try makeRequest(.post, "http://example.com/post", headers: [.contentType: "text/plain"])
        let serialized = try serializer.serialize(request, parameters: ["key": "value"])
        #expect(serialized.request.headerFields[values: .contentType] == ["text/plain"])
        #expect(try await text(of: serialized.body) == "key=value")
    }

    @Test(arguments: [HTTPRequest.Method.put, .patch, .post, .options])
    func otherMethodsSendAFormBody(method: HTTPRequest.Method) async throws {
        // Checklist 8 (offline part).
        let serialized = try serializer.serialize(try makeRequest(method, "http://example.com/x?a=1"), parameters: ["key": "value", "n": [1, 2]])
        #expect(serialized.request.path == "/x?a=1")
        #expect(serialized.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(try await text(of: serialized.body) == "key=value&n%5B%5D=1&n%5B%5D=2")
    }

    // MARK: URI methods

    @Test func getParametersGoIntoTheQuery() throws {
        // Checklist 4.
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com"), parameters: ["key": "value"])
        #expect(serialized.request.url?.absoluteString == "http://example.com/?key=value")
        #expect(serialized.request.path == "/?key=value")
        #expect(serialized.body == nil)
        #expect(serialized.request.headerFields[.contentType] == nil)
    }

    @Test func emptyParametersLeaveTheURLUnchanged() throws {
        // Checklist 5: no trailing `?`.
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/p"), parameters: [:])
        #expect(serialized.request.path == "/p")
        let nested = try serializer.serialize(try makeRequest(.get, "http://example.com/p?a=1"), parameters: ["e": []])
        #expect(nested.request.path == "/p?a=1")
        let none = try serializer.serialize(try makeRequest(.get, "http://example.com/p"), parameters: nil)
        #expect(none.request.path == "/p")
        #expect(none.body == nil)
    }

    @Test func anExistingQueryIsExtendedWithAnAmpersand() throws {
        // Checklist 6.
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/p?a=1"), parameters: ["b": "2"])
        #expect(serialized.request.url?.absoluteString == "http://example.com/p?a=1&b=2")
    }

    @Test func aBareQuestionMarkIsFollowedDirectly() throws {
        var request = try makeRequest(.get, "http://example.com/p")
        request.path = "/p?"
        #expect(try serializer.serialize(request, parameters: ["b": "2"]).request.path == "/p?b=2")
    }

    @Test func aHandBuiltFragmentStaysLast() throws {
        var request = try makeRequest(.get, "http://example.com/p")
        request.path = "/p?a=1#top"
        #expect(try serializer.serialize(request, parameters: ["b": "2"]).request.path == "/p?a=1&b=2#top")
        request.path = "/p#top"
        #expect(try serializer.serialize(request, parameters: ["b": "2"]).request.path == "/p?b=2#top")
    }

    @Test func percentEncodedPathsAreLeftAlone() throws {
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/a%20b/c?x=%2F"), parameters: ["q": "a/b c"])
        #expect(serialized.request.path == "/a%20b/c?x=%2F&q=a/b%20c")
    }

    @Test(arguments: [HTTPRequest.Method.delete, .head])
    func deleteAndHeadUseTheQuery(method: HTTPRequest.Method) throws {
        // Checklist 7 (offline part).
        let serialized = try serializer.serialize(try makeRequest(method, "http://example.com/delete"), parameters: ["key": "value"])
        #expect(serialized.request.path == "/delete?key=value")
        #expect(serialized.body == nil)
        #expect(serialized.request.headerFields[.contentType] == nil)
    }

    @Test func defaultsAreAFNetworkings() throws {
        // Checklist 9: the URI methods, and a lowercase method compared uppercased.
        #expect(serializer.methodsEncodingParametersInURI == [.get, .head, .delete])
        // AFNetworking's default headers, in their Linux form (checklist 29, 30).
        #expect(serializer.defaultHeaderFields == .courierDefaults())
        #expect(serializer.defaultHeaderFields[.acceptLanguage] != nil)
        #expect(serializer.defaultHeaderFields[.userAgent] != nil)
        #expect(serializer.queryStringBuilder == nil)
        let lowercase = try #require(HTTPRequest.Method("get"))
        #expect(serializer.encodesParametersInURI(lowercase))
        #expect(!serializer.encodesParametersInURI(try #require(HTTPRequest.Method("gets"))))
        let serialized = try serializer.serialize(try makeRequest(lowercase, "http://example.com/get"), parameters: ["key": "value"])
        #expect(serialized.request.path == "/get?key=value")
        #expect(serialized.body == nil)
    }

    @Test func theURIMethodsCanBeChanged() async throws {
        var serializer = HTTPRequestSerializer()
        serializer.methodsEncodingParametersInURI = [.post]
        let post = try serializer.serialize(try makeRequest(.post, "http://example.com/p"), parameters: ["a": "1"])
        #expect(post.request.path == "/p?a=1")
        #expect(post.body == nil)
        let get = try serializer.serialize(try makeRequest(.get, "http://example.com/p"), parameters: ["a": "1"])
        #expect(get.request.path == "/p")
        #expect(try await text(of: get.body) == "a=1")
    }

    @Test func emojiInAGetQuery() throws {
        // Checklist 15.
        let emoji = String(repeating: "👴🏿👷🏻👮🏽", count: 5)
        let serialized = try serializer.serialize(try makeRequest(.get, "http://test.com"), parameters: ["test": .string("!" + emoji)])
        let escaped = String(repeating: "%F0%9F%91%B4%F0%9F%8F%BF%F0%9F%91%B7%F0%9F%8F%BB%F0%9F%91%AE%F0%9F%8F%BD", count: 5)
        #expect(serialized.request.url?.absoluteString == "http://test.com/?test=%21" + escaped)
        #expect(serialized.request.url?.query == "test=%21" + escaped)
    }

    // MARK: Custom query builder

    @Test func aCustomBuilderWritesTheQuery() async throws {
        // Checklist 24.
        let serializer = HTTPRequestSerializer(queryStringBuilder: { _ in "key**value" })
        let get = try serializer.serialize(try makeRequest(.get, "http://example.com/get"), parameters: ["key": "value"])
        #expect(get.request.url?.query == "key**value")
        let post = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["key": "value"])
        #expect(try await text(of: post.body) == "key**value")
    }

    @Test func aCustomBuilderGetsAnyShapeOfParameters() throws {
        let serializer = HTTPRequestSerializer(queryStringBuilder: { parameters in
            guard case .array(let values) = parameters else { return "" }
            return values.map { "v=\($0 == .int(1) ? "one" : "other")" }.joined(separator: "&")
        })
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: [1, 2])
        #expect(serialized.request.path == "/?v=one&v=other")
    }

    @Test(arguments: [HTTPRequest.Method.get, .post])
    func aCustomBuilderErrorAbortsUnchanged(method: HTTPRequest.Method) throws {
        // Checklist 25: the same error, no request.
        let serializer = HTTPRequestSerializer(queryStringBuilder: { _ in throw MarkerError(id: 7) })
        #expect(throws: MarkerError(id: 7)) {
            _ = try serializer.serialize(try makeRequest(method, "http://example.com/"), parameters: ["key": "value"])
        }
    }

    @Test func theBuilderIsNotCalledWithoutParameters() async throws {
        let serializer = HTTPRequestSerializer(queryStringBuilder: { _ in throw MarkerError(id: 8) })
        #expect(try serializer.serialize(try makeRequest(.get, "http://example.com/p"), parameters: nil).request.path == "/p")
        #expect(try await text(of: try serializer.serialize(try makeRequest(.post, "http://example.com/p"), parameters: nil).body) == "")
    }

    @Test func aCustomBuilderErrorReachesSessionCallersWrappedOnce() throws {
        // Checklist 25, session side: no task, the builder's error inside a CourierError.
        let configuration = SessionConfiguration(
            requestSerializer: HTTPRequestSerializer(queryStringBuilder: { _ in throw MarkerError(id: 9) })
        )
        let session = Session(configuration: configuration, transport: RefusingTransport())
        do {
            _ = try session.get("http://example.com/get", parameters: ["key": "value"])
            Issue.record("expected the call to fail before creating a task")
        } catch {
            #expect(error.stage == .requestSerialization)
            #expect(error.underlyingError as? MarkerError == MarkerError(id: 9))
        }
    }

    @Test func aNonDictionaryTopLevelFailsWithATypedError() {
        #expect {
            _ = try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: ["a", "b"])
        } throws: { error in
            (error as? RequestSerializationError)?.reason == .parametersNotDictionary
        }
    }

    // MARK: Default header fields

    @Test func defaultHeaderFieldsFillOnlyWhatIsMissing() throws {
        // Checklist 28 (offline part): per-request fields win over the serializer's defaults.
        let serializer = HTTPRequestSerializer(defaultHeaderFields: [.xFoo: "foo value", .xBar: "bar value"])
        let request = try makeRequest(.get, "http://example.com/headers", headers: [.xFoo: "request value"])
        let serialized = try serializer.serialize(request, parameters: nil)
        #expect(serialized.request.headerFields[values: .xFoo] == ["request value"])
        #expect(serialized.request.headerFields[values: .xBar] == ["bar value"])
    }

    @Test func defaultHeaderFieldsThroughASession() throws {
        // Checklist 28: the session's per-call headers override the serializer's defaults.
        let configuration = SessionConfiguration(
            requestSerializer: HTTPRequestSerializer(defaultHeaderFields: [.xFoo: "foo value", .xBar: "bar value"])
        )
        let session = Session(configuration: configuration, transport: RefusingTransport())
        let request = try session.makeRequest(.post, "http://example.com/post", headers: [.xFoo: "request value"])
        let serialized = try session.serialize(request, parameters: ["key": "value"])
        #expect(serialized.request.headerFields[.xFoo] == "request value")
        #expect(serialized.request.headerFields[.xBar] == "bar value")
    }

    @Test func aDefaultWithSeveralValuesAddsThemAll() throws {
        var defaults = HTTPFields()
        defaults.append(HTTPField(name: .accept, value: "text/html"))
        defaults.append(HTTPField(name: .accept, value: "application/json"))
        let serializer = HTTPRequestSerializer(defaultHeaderFields: defaults)
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: nil)
        #expect(serialized.request.headerFields[values: .accept] == ["text/html", "application/json"])
    }

    @Test func aDefaultContentTypeWinsOverTheFormType() throws {
        let serializer = HTTPRequestSerializer(defaultHeaderFields: [.contentType: "text/csv"])
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/"), parameters: ["a": "1"])
        #expect(serialized.request.headerFields[values: .contentType] == ["text/csv"])
    }
}
