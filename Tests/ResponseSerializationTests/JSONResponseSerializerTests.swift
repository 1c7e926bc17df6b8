import CourierCore
import CourierResponseSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite struct JSONResponseSerializerTests {
    private let serializer = JSONResponseSerializer()

    private func json(_ body: String, status: Int = 200, type: String = "application/json") throws -> JSONValue? {
        try serializer.serialize(response(status, contentType: type, body: body))
    }

    /// Item 58: exactly AFNetworking's three types.
    @Test func acceptableTypesAreAFNetworkings() throws {
        #expect(serializer.validator.acceptableContentTypes == ["application/json", "text/json", "text/javascript"])
        for type in ["application/json", "text/json", "text/javascript", "application/json; charset=utf-8"] {
            #expect(try json("{}", type: type) == .object([:]))
        }
        for type in ["nonstandard/json", "application/problem+json"] {
            #expect(throws: ResponseValidationError.self) { try json("{}", type: type) }
        }
    }

    /// Item 59: objects, garbage, empty and single-space bodies.
    @Test func parsesObjectsAndFollowsTheSpaceRules() throws {
        #expect(try json(#"{"foo":"bar"}"#) == .object(["foo": .string("bar")]))
        let error = #expect(throws: ResponseSerializationError.self) { try json("{invalid}") }
        #expect(error?.reason == .invalidJSON)
        #expect(error?.line == 1 && error?.column == 2)
        #expect(try json("") == nil)
        #expect(try json(" ") == nil)
        #expect(throws: ResponseSerializationError.self) { try json("  ") }
    }

    /// Item 55: a wrong type with a body is an error; with an empty body, nil and no error.
    @Test func wrongContentType() throws {
        let error = #expect(throws: ResponseValidationError.self) { try json("<p>", type: "text/html") }
        #expect(error?.description == "Request failed: unacceptable content-type: text/html")
        #expect(try json("", type: "text/html") == nil)
    }

    /// Item 56: a 404 with a wrong type: the status error with the type error beneath, no parsing.
    @Test func statusAndTypeBothWrong() throws {
        let error = #expect(throws: ResponseValidationError.self) { try json("<p>not json</p>", status: 404, type: "text/html") }
        #expect(error?.reason == .unacceptableStatusCode)
        #expect((error?.underlyingError as? ResponseValidationError)?.reason == .unacceptableContentType)
        #expect(error?.serializedValue == nil)
    }

    /// Item 60: a status-only failure still parses; the value travels with the error.
    @Test func statusOnlyFailureStillParses() throws {
        let error = #expect(throws: ResponseValidationError.self) { try json(#"{"message":"Client did not request a supported media type."}"#, status: 406) }
        #expect(error?.reason == .unacceptableStatusCode)
        #expect(error?.description == "Request failed: unacceptable (406)")
        let value = error?.serializedValue as? JSONValue?
        #expect(value??["message"]?.stringValue == "Client did not request a supported media type.")
    }

    @Test func parseErrorKeepsTheStatusError() throws {
        let error = #expect(throws: ResponseSerializationError.self) { try json("{", status: 500) }
        #expect(error?.reason == .invalidJSON)
        #expect(error?.validationError?.statusCode == 500)
    }

    /// Item 61: null removal, recursive; off by default.
    @Test func removesNullsOnlyWhenAsked() throws {
        let body = #"{"key":"value","nullkey":null,"array":[{"subnullkey":null}],"arrayWithNulls":[null]}"#
        var removing = serializer
        removing.removesKeysWithNullValues = true
        #expect(try removing.serialize(response(contentType: "application/json", body: body))
            == .object(["key": "value", "array": .array([.object([:])]), "arrayWithNulls": .array([])]))
        #expect(try json(body)?["nullkey"] == .null)
    }

    @Test func otherCharsetsAreConvertedToUTF8First() throws {
        var utf16 = Data([0xFE, 0xFF])
        for unit in #"{"é":"ü"}"#.utf16 { utf16.append(contentsOf: [UInt8(unit >> 8), UInt8(unit & 0xFF)]) }
        #expect(try serializer.serialize(response(contentType: "application/json; charset=utf-16", data: utf16)) == .object(["é": "ü"]))
        let latin1 = Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xE9, 0x22, 0x7D])   // {"a":"é"}
        #expect(try serializer.serialize(response(contentType: "application/json; charset=iso-8859-1", data: latin1)) == .object(["a": "é"]))
        // An unknown charset is read as UTF-8 (RFC 8259; AFNetworking 3+ ignores the parameter).
        #expect(try serializer.serialize(response(contentType: "application/json; charset=windows-1251", body: #"{"a":1}"#)) == .object(["a": 1]))
    }

    @Test func fragmentsOnlyWhenAllowed() throws {
        #expect(throws: ResponseSerializationError.self) { try json("5") }
        var fragments = serializer
        fragments.allowsFragments = true
        #expect(try fragments.serialize(response(contentType: "application/json", body: " \"x\" ")) == .string("x"))
    }

    @Test func oversizedBodyIsATypedError() {
        var small = serializer
        small.maximumBodySize = 4
        let error = #expect(throws: ResponseSerializationError.self) { try small.serialize(response(contentType: "application/json", body: "[1,2,3]")) }
        #expect(error?.reason == .tooLarge)
    }

    @Test func xssiPrefixIsStripped() throws {
        var stripping = serializer
        stripping.dataPreprocessor = XSSIPrefixStripper()
        #expect(try stripping.serialize(response(contentType: "application/json", body: ")]}',\n[1]")) == .array([.int(1)]))
    }
}
