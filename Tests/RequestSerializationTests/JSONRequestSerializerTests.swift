import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("JSON request serializer")
struct JSONRequestSerializerTests {
    let serializer = JSONRequestSerializer()

    /// The JSON body `serializer` writes for `parameters` on a POST.
    func json(_ parameters: Parameters) async throws -> String? {
        try await text(of: serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: parameters).body)
    }

    /// True when `error` is an invalid-JSON error at `location` with AFNetworking's wording.
    func isInvalidJSON(_ error: any Error, at location: String) -> Bool {
        guard let error = error as? RequestSerializationError else { return false }
        return error.reason == .invalidJSON && error.location == location
            && error.description.hasPrefix("The `parameters` argument is not valid JSON. \(location): ")
    }

    // MARK: Bodies

    @Test func aDictionaryBecomesCompactJSON() async throws {
        // Checklist 32 (offline part).
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["key": "value"])
        #expect(serialized.request.headerFields[.contentType] == "application/json")
        #expect(serialized.request.path == "/post")
        #expect(try await text(of: serialized.body) == #"{"key":"value"}"#)
        #expect(serialized.body?.length == .known(15))
    }

    @Test func anArrayAtTheTopLevel() async throws {
        // Checklist 33.
        #expect(try await json([["key": "value"]]) == #"[{"key":"value"}]"#)
    }

    @Test func everyKindOfValue() async throws {
        let parameters: Parameters = [
            "s": "x", "i": -3, "d": 1.5, "whole": 2.0, "t": true, "f": false, "n": nil,
            "a": [1, "two", [:], []], "o": ["z": 1, "a": ["b": nil]],
            "bytes": .data(Data("hi!".utf8)),
        ]
        #expect(try await json(parameters) == #"{"a":[1,"two",{},[]],"bytes":"aGkh","d":1.5,"f":false,"i":-3,"n":null,"o":{"a":{"b":null},"z":1},"s":"x","t":true,"whole":2}"#)
    }

    @Test(arguments: [
        (0.1, "0.1"), (-0.0, "-0"), (1e15, "1000000000000000"), (1e16, "1e+16"), (0.1 + 0.2, "0.30000000000000004"),
        (Double.leastNonzeroMagnitude, "5e-324"), (Double.greatestFiniteMagnitude, "1.7976931348623157e+308"), (-2.5e-7, "-2.5e-07"),
    ])
    func doublesReadBackExactly(value: Double, expected: String) async throws {
        #expect(try await json([.double(value)]) == "[\(expected)]")
    }

    @Test func integersKeepFullPrecision() async throws {
        #expect(try await json([.int(Int.max), .int(Int.min)]) == "[9223372036854775807,-9223372036854775808]")
    }

    @Test func stringsAreEscapedPerRFC8259() async throws {
        let tricky = "quote\" backslash\\ slash/ \u{8}\u{C}\n\r\t nul\u{0} unit\u{1F} del\u{7F} é 👮🏽 \u{2028}"
        let expected = #"["quote\" backslash\\ slash/ \b\f\n\r\t nul\u0000 unit\u001f del"# + "\u{7F} é 👮🏽 \u{2028}\"]"
        #expect(try await json([.string(tricky)]) == expected)
    }

    @Test func keysAreEscapedAndSorted() async throws {
        #expect(try await json(["b\"": 1, "B": 2, "a\n": 3]) == #"{"B":2,"a\n":3,"b\"":1}"#)
    }

    @Test func deepNesting() async throws {
        var value: Parameters = "leaf"
        for _ in 0..<50 { value = [value] }
        let expected = String(repeating: "[", count: 50) + "\"leaf\"" + String(repeating: "]", count: 50)
        #expect(try await json(value) == expected)
    }

    @Test func aLoneSurrogateCannotReachTheWriter() async throws {
        // Checklist 35: Swift strings hold only valid Unicode, so an unpaired UTF-16 surrogate is
        // replaced by U+FFFD when the string is built and the JSON stays valid.
        let lone = String(decoding: [0x61, 0xD800, 0x62] as [UInt16], as: UTF16.self)
        #expect(lone == "a\u{FFFD}b")
        #expect(try await json(["k": .string(lone)]) == "{\"k\":\"a\u{FFFD}b\"}")
    }

    // MARK: Invalid JSON

    @Test func aSetIsNotJSON() throws {
        // Checklist 34.
        #expect {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["s": .set(["a"])])
        } throws: { isInvalidJSON($0, at: #"parameters["s"]"#) }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreNotJSON(value: Double) throws {
        // Checklist 34.
        #expect {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["a": [1, ["x": .double(value)]]])
        } throws: { isInvalidJSON($0, at: #"parameters["a"][1]["x"]"#) }
    }

    @Test(arguments: [Parameters.string("s"), .int(1), .double(1.5), .bool(true), .null, .data(Data([1]))])
    func aScalarTopLevelIsNotAJSONObject(parameters: Parameters) throws {
        #expect {
            _ = try serializer.serialize(try makeRequest(.put, "http://example.com/put"), parameters: parameters)
        } throws: { isInvalidJSON($0, at: "parameters") }
    }

    @Test func theMessageNamesTheProblem() throws {
        do {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/"), parameters: ["ratio": .double(.nan)])
            Issue.record("expected an error")
        } catch let error as RequestSerializationError {
            #expect(error.description == #"The `parameters` argument is not valid JSON. parameters["ratio"]: nan is not a JSON number; JSON has no NaN or infinity"#)
        }
    }

    // MARK: URI methods and headers

    @Test func getParametersGoIntoTheQueryWithoutBodyOrContentType() throws {
        // Checklist 36.
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/get"), parameters: ["key": "value"])
        #expect(serialized.request.url?.absoluteString == "http://example.com/get?key=value")
        #expect(serialized.body == nil)
        #expect(serialized.request.headerFields[.contentType] == nil)
    }

    @Test func aSetInAGetQueryIsFine() throws {
        // URI methods follow the query rules, where a set is allowed.
        let serialized = try serializer.serialize(try makeRequest(.delete, "http://example.com/d?x=1"), parameters: ["s": .set(["b", "a"])])
        #expect(serialized.request.path == "/d?x=1&s=a&s=b")
    }

    @Test func postWithoutParametersHasNoBodyAndNoContentType() throws {
        // Checklist 36.
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: nil)
        #expect(serialized.body == nil)
        #expect(serialized.request.headerFields[.contentType] == nil)
    }

    @Test func anExistingContentTypeIsKept() async throws {
        let request = try makeRequest(.post, "http://example.com/", headers: [.contentType: "application/vnd.api+json"])
        let serialized = try serializer.serialize(request, parameters: ["a": 1])
        #expect(serialized.request.headerFields[values: .contentType] == ["application/vnd.api+json"])
        #expect(try await text(of: serialized.body) == #"{"a":1}"#)
    }

    @Test func settingsApplyAsInTheHTTPSerializer() async throws {
        let serializer = JSONRequestSerializer(
            methodsEncodingParametersInURI: [.get],
            defaultHeaderFields: [.xFoo: "foo value", .contentType: "text/json"],
            queryStringBuilder: { _ in "custom" }
        )
        let get = try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: ["a": 1])
        #expect(get.request.path == "/?custom")
        #expect(get.request.headerFields[.xFoo] == "foo value")
        #expect(get.body == nil)

        // DELETE is no longer a URI method: a JSON body, and the builder does not shape it.
        let delete = try serializer.serialize(try makeRequest(.delete, "http://example.com/"), parameters: ["a": 1])
        #expect(delete.request.path == "/")
        #expect(delete.request.headerFields[.contentType] == "text/json")
        #expect(try await text(of: delete.body) == #"{"a":1}"#)
    }

    @Test func defaultsAreAFNetworkings() {
        #expect(serializer.methodsEncodingParametersInURI == [.get, .head, .delete])
        // AFNetworking's default headers, in their Linux form (checklist 29, 30).
        #expect(serializer.defaultHeaderFields == .courierDefaults())
        #expect(serializer.defaultHeaderFields[.acceptLanguage] != nil)
        #expect(serializer.defaultHeaderFields[.userAgent] != nil)
        #expect(serializer.queryStringBuilder == nil)
    }

    @Test func theQueryBuilderErrorSurfacesUnchanged() throws {
        let serializer = JSONRequestSerializer(queryStringBuilder: { _ in throw MarkerError(id: 3) })
        #expect(throws: MarkerError(id: 3)) {
            _ = try serializer.serialize(try makeRequest(.head, "http://example.com/"), parameters: ["a": 1])
        }
    }
}
