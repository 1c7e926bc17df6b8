import CourierCore
import CourierResponseSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite struct ValidationTests {
    /// Item 51: exactly 200…299 are acceptable by default.
    @Test func defaultStatusCodesAre200Through299() {
        let validator = ResponseValidator()
        #expect(validator.acceptableStatusCodes == Set(200..<300))
        for code in 200..<300 {
            #expect(validator.validate(response(code, contentType: "text/html", body: "text")).isValid)
        }
    }

    /// Item 52: every 4xx/5xx, and 199, 304, 399, fail with AFNetworking's message and the exchange attached.
    @Test(arguments: Array(400..<600) + [199, 304, 399])
    func statusOutsideTheSetFails(code: Int) throws {
        let outcome = ResponseValidator().validate(response(code, contentType: "text/html", body: "text", path: "/status"))
        let error = try #require(outcome.error)
        #expect(error.reason == .unacceptableStatusCode)
        #expect(error.statusCode == code)
        #expect(error.url == "http://mock.test/status")
        #expect(error.body == Data("text".utf8))
        #expect(error.description.hasPrefix("Request failed: "))
        #expect(error.description.hasSuffix("(\(code))"))
        #expect(!outcome.rejectsContent)
    }

    @Test func messagesUseAFNetworkingsWords() {
        #expect(ResponseValidator().validate(response(404)).error?.description == "Request failed: not found (404)")
        #expect(ResponseValidator().validate(response(500)).error?.description == "Request failed: internal server error (500)")
        #expect(ResponseValidator().validate(response(599)).error?.description == "Request failed: server error (599)")
        let typed = ResponseValidator(acceptableContentTypes: ["application/json"])
        #expect(typed.validate(response(200, contentType: "text/html", body: "<p>")).error?.description
            == "Request failed: unacceptable content-type: text/html")
    }

    /// Item 53: without a type set, any type passes.
    @Test func anyContentTypeWithoutASet() {
        #expect(ResponseValidator().validate(response(200, contentType: "weird/type", body: "x")).isValid)
    }

    /// Item 54: no Content-Type and an empty body is fine; no Content-Type with a body is not.
    @Test func missingTypeIsExemptOnlyForAnEmptyBody() {
        let validator = ResponseValidator(acceptableContentTypes: ["text/html"])
        #expect(validator.validate(response(205)).isValid)
        let outcome = validator.validate(response(205, body: "test"))
        #expect(outcome.error?.reason == .unacceptableContentType)
        #expect(outcome.rejectsContent)
    }

    /// Item 55: a wrong type with an empty body is invalid without an error.
    @Test func wrongTypeWithAnEmptyBodyIsInvalidWithoutAnError() {
        let outcome = ResponseValidator(acceptableContentTypes: ["application/json"]).validate(response(200, contentType: "text/html"))
        #expect(!outcome.isValid)
        #expect(outcome.error == nil)
        #expect(outcome.rejectsContent)
    }

    /// Item 56: both failing gives the status error with the content-type error beneath.
    @Test func statusErrorCarriesTheContentTypeError() throws {
        let outcome = ResponseValidator(acceptableContentTypes: ["application/json"]).validate(response(404, contentType: "text/html", body: "<p>"))
        let error = try #require(outcome.error)
        #expect(error.reason == .unacceptableStatusCode)
        #expect((error.underlyingError as? ResponseValidationError)?.reason == .unacceptableContentType)
        #expect(outcome.rejectsContent)
        let plain = try #require(ResponseValidator().validate(response(404, contentType: "text/html", body: "<p>")).error)
        #expect(plain.underlyingError == nil)
    }

    /// Item 57: parameters are dropped and case folded; a missing header has no type.
    @Test func mimeTypeDropsParameters() {
        #expect(response(contentType: "Application/JSON; charset=utf-8").head.mimeType == "application/json")
        #expect(response(contentType: "text/plain;charset=\"ISO-8859-1\"").head.charset == "iso-8859-1")
        #expect(response().head.mimeType == nil)
        #expect(ResponseValidator(acceptableContentTypes: ["application/json"])
            .validate(response(contentType: "application/json; charset=utf-8", body: "{}")).isValid)
    }
}

@Suite struct RepeatedContentTypeTests {
    @Test func theLastContentTypeCounts() {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .contentType, value: "application/json"))
        fields.append(HTTPField(name: .contentType, value: "text/json; charset=utf-8"))
        let head = HTTPResponse(status: .ok, headerFields: fields)
        #expect(head.mimeType == "text/json")
        #expect(head.charset == "utf-8")
    }
}
