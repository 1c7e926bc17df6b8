import Courier
import Foundation
import Testing

/// Checklists A and B against httpbin: what the server parses is what the serializers meant.
@Suite("Request serialization") struct RequestSerializationTests {
    private func serialized(_ serializer: any RequestSerializer) -> Session {
        session { $0.requestSerializer = serializer }
    }

    private func field(_ response: DataResponse, _ key: String) throws -> [String: Any] {
        try #require(try json(response)[key] as? [String: Any])
    }

    /// Items 1 and 8: form bodies on POST, PUT and PATCH.
    @Test(arguments: [HTTPRequest.Method.post, .put, .patch])
    func formBodies(method: HTTPRequest.Method) async throws {
        let response = try await serialized(HTTPRequestSerializer()).request(method, method.rawValue.lowercased(), parameters: ["key": "value", "user": ["name": "a b"]]).response
        let form = try field(response, "form")
        #expect(form["key"] as? String == "value")
        #expect(form["user[name]"] as? String == "a b")
        #expect(try field(response, "headers")["Content-Type"] as? String == "application/x-www-form-urlencoded")
    }

    /// Item 2: a POST without parameters still sends the form type and an empty body.
    @Test func emptyFormBody() async throws {
        let response = try await serialized(HTTPRequestSerializer()).post("post").response
        let headers = try field(response, "headers")
        #expect(headers["Content-Type"] as? String == "application/x-www-form-urlencoded")
        #expect(headers["Content-Length"] as? String == "0")
        #expect(try json(response)["data"] as? String == "")
    }

    /// Item 7: DELETE and GET put parameters in the query, escaped by AFNetworking's rules.
    @Test func queryMethods() async throws {
        let s = serialized(HTTPRequestSerializer())
        let deleted = try await s.delete("delete", parameters: ["key": "value"]).response
        #expect(try field(deleted, "args")["key"] as? String == "value")
        let tricky = " :#[]@!$&'()*+,;=/?é"
        let got = try await s.get("get", parameters: ["k": .string(tricky), "ids": [1, 2]]).response
        let args = try field(got, "args")
        #expect(args["k"] as? String == tricky)
        #expect(args["ids[]"] as? [String] == ["1", "2"])
        let head = try await s.head("get", parameters: ["key": "value"]).response
        #expect(head.request.path == "/get?key=value")
        #expect(head.status == .ok && head.data.isEmpty)
    }

    /// Query options on the wire: indexed arrays, literal booleans, `+` for spaces.
    @Test func queryOptions() async throws {
        var serializer = HTTPRequestSerializer()
        serializer.queryOptions = QueryString.Options(arrays: .indexed, booleans: .literal, spaces: .plus)
        let args = try field(try await serialized(serializer).get("get", parameters: ["a": ["x y", "z"], "t": true]).response, "args")
        #expect(args["a[0]"] as? String == "x y")
        #expect(args["a[1]"] as? String == "z")
        #expect(args["t"] as? String == "true")
    }

    /// An Encodable value through every serializer.
    @Test func encodableValues() async throws {
        struct Search: Encodable { var query: String; var pageSize: Int; var tags: [String] }
        var encoder = ParametersEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let parameters = try encoder.encode(Search(query: "swift http", pageSize: 20, tags: ["a", "b"]))
        let args = try field(try await serialized(HTTPRequestSerializer()).get("get", parameters: parameters).response, "args")
        #expect(args["query"] as? String == "swift http")
        #expect(args["page_size"] as? String == "20")
        let echoed = try field(try await serialized(JSONRequestSerializer()).post("post", parameters: parameters).response, "json")
        #expect(echoed["page_size"] as? Int == 20)
        #expect(echoed["tags"] as? [String] == ["a", "b"])
    }

    /// Item 28: serializer defaults lose to a call's own fields of the same name.
    @Test func defaultHeadersAndCallHeaders() async throws {
        var serializer = HTTPRequestSerializer()
        try serializer.setValue("foo value", forHeader: "X-Foo")
        try serializer.setValue("bar value", forHeader: "X-Bar")
        let headers = try field(try await serialized(serializer).get("headers", headers: [HTTPField.Name("X-Foo")!: "request value"]).response, "headers")
        #expect(headers["X-Foo"] as? String == "request value")
        #expect(headers["X-Bar"] as? String == "bar value")
    }

    /// Items 29 and 30: AFNetworking's default headers reach the server, ASCII-only.
    @Test func defaultAcceptLanguageAndUserAgent() async throws {
        let headers = try field(try await serialized(HTTPRequestSerializer()).get("headers").response, "headers")
        let userAgent = try #require(headers["User-Agent"] as? String)
        #expect(userAgent == UserAgent.current())
        let isASCII = userAgent.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(isASCII)
        #expect(userAgent.contains("(Linux "))
        #expect(headers["Accept-Language"] as? String == AcceptLanguage.current)
    }

    /// Item 31: the basic-auth helper opens hidden-basic-auth; clearing it closes it again.
    @Test func basicAuthorizationHelper() async throws {
        var serializer = HTTPRequestSerializer()
        serializer.setAuthorization(username: "user", password: "password")
        #expect(serializer.value(forHeader: "Authorization") == "Basic dXNlcjpwYXNzd29yZA==")
        #expect(try await serialized(serializer).get("hidden-basic-auth/user/password").response.status.code == 200)
        serializer.clearAuthorizationHeader()
        #expect(try await serialized(serializer).get("hidden-basic-auth/user/password").response.status.code == 404)
        try serializer.setBearerToken("abc")
        #expect(try await serialized(serializer).get("bearer").response.status.code == 200)
        #expect(throws: InvalidRequestError.self) { try serializer.setBearerToken("abc\r\nX-Injected: 1") }
    }

    /// Items 32, 33 and 36: compact JSON bodies; GET keeps parameters in the query.
    @Test func jsonBodies() async throws {
        let s = serialized(JSONRequestSerializer())
        let object = try await s.post("post", parameters: ["key": "value"]).response
        #expect(try json(object)["data"] as? String == #"{"key":"value"}"#)
        #expect(try field(object, "json")["key"] as? String == "value")
        #expect(try field(object, "headers")["Content-Type"] as? String == "application/json")
        let array = try await s.post("post", parameters: [["key": "value"]]).response
        #expect(try json(array)["data"] as? String == #"[{"key":"value"}]"#)
        let get = try await s.get("get", parameters: ["key": "value"]).response
        #expect(try field(get, "args")["key"] as? String == "value")
        #expect(try field(get, "headers")["Content-Type"] == nil)
    }

    /// Item 37: an XML property list body.
    @Test func propertyListBody() async throws {
        let response = try await serialized(PropertyListRequestSerializer()).post("post", parameters: ["key": "value"]).response
        #expect(try field(response, "headers")["Content-Type"] as? String == "application/x-plist")
        let body = try #require(try json(response)["data"] as? String)
        let decoded = try PropertyListDecoder().decode([String: String].self, from: Data(body.utf8))
        #expect(decoded == ["key": "value"])
    }

    /// Items 34 and 25 on a real session: nothing reaches the server.
    @Test func invalidParametersSendNothing() async throws {
        let error = #expect(throws: CourierError.self) {
            _ = try serialized(JSONRequestSerializer()).post("post", parameters: ["n": .double(.nan)])
        }
        #expect(error?.stage == .requestSerialization)
        let message = error.map { "\($0.underlyingError)" } ?? ""
        #expect(message.hasPrefix("The `parameters` argument is not valid JSON."))
    }
}
