import Courier
import Foundation
import Testing

/// Checklist D against httpbin, and the failure halves of items 92, 94 and 111, which need
/// validation: a session whose response serializer is AFNetworking's JSON one.
@Suite("Response serialization") struct ResponseSerializationTests {
    private func jsonSession(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        session { configuration in
            configuration.responseSerializer = JSONResponseSerializer()
            configure(&configuration)
        }
    }

    private func validationError(_ error: CourierError) -> ResponseValidationError? {
        error.underlyingError as? ResponseValidationError
    }

    /// Items 91, 59: /json parses to an object.
    @Test func jsonParses() async throws {
        let value = try await session().get("json").value(using: JSONResponseSerializer())
        #expect(value?["slideshow"]?["title"]?.stringValue == "Sample Slide Show")
    }

    /// Item 92: a 404 fails with the status error, failing URL, response and body attached.
    @Test func notFoundFailsValidation() async throws {
        let task = try jsonSession().get("status/404")
        let error = await #expect(throws: CourierError.self) { _ = try await task.value() }
        #expect(error?.stage == .responseSerialization)
        #expect(error?.response?.status.code == 404)
        let failure = try #require(error.flatMap(validationError))
        #expect(failure.description == "Request failed: not found (404)")
        #expect(failure.url == "\(Servers.httpbin)/status/404")
        #expect(task.state == .completed)
    }

    /// Item 94: a refused redirect completes with the 302 and the status error.
    @Test func refusedRedirectFailsValidation() async throws {
        let s = jsonSession { $0.redirectPolicy = RedirectPolicy { _ in .refuse } }
        let error = await #expect(throws: CourierError.self) { _ = try await s.get("redirect/1").value() }
        #expect(error?.response?.status.code == 302)
        #expect(error.flatMap(validationError)?.statusCode == 302)
    }

    /// Item 111: 200 with an empty text/html body and 204 succeed with no value; 404 fails.
    @Test func emptyBodiesSucceedWithoutAValue() async throws {
        let s = jsonSession()
        #expect(try await s.get("status/200").value() as? JSONValue? == .some(nil))
        #expect(try await s.get("status/204").value() as? JSONValue? == .some(nil))
        await #expect(throws: CourierError.self) { _ = try await s.get("status/404").value() }
    }

    /// Item 60: a 406 with a JSON body: the parsed body travels with the status error.
    @Test func statusOnlyFailureCarriesTheParsedBody() async throws {
        let error = await #expect(throws: CourierError.self) {
            _ = try await session().get("status/406").value(using: JSONResponseSerializer())
        }
        let failure = try #require(error.flatMap(validationError))
        #expect(failure.statusCode == 406)
        let parsed = failure.serializedValue as? JSONValue?
        #expect(parsed??["message"]?.stringValue?.isEmpty == false)
    }

    /// Item 55: /html is not JSON.
    @Test func htmlIsAnUnacceptableContentType() async throws {
        let error = await #expect(throws: CourierError.self) { _ = try await session().get("html").value(using: JSONResponseSerializer()) }
        #expect(error.flatMap(validationError)?.description == "Request failed: unacceptable content-type: text/html")
        let page = try await session().get("html").value(using: StringResponseSerializer())
        #expect(page.contains("Herman Melville"))
    }

    @Test func utf8PageDecodes() async throws {
        let text = try await session().get("encoding/utf8").value(using: StringResponseSerializer())
        #expect(text.contains("∮ E⋅da = Q"))
    }

    /// Item 65 on the wire.
    @Test func imagesAreRecognized() async throws {
        let s = session()
        let accept: HTTPFields = [.accept: "image/*"]
        let png = try await s.get("image/png", headers: accept).value(using: ImageResponseSerializer())
        #expect(png.format == .png && png.width > 0 && png.height > 0)
        let jpeg = try await s.get("image/jpeg", headers: accept).value(using: ImageResponseSerializer())
        #expect(jpeg.format == .jpeg && jpeg.width > 0 && jpeg.height > 0)
        for refused in ["image/webp", "image/svg"] {
            let error = await #expect(throws: CourierError.self) { _ = try await s.get(refused, headers: accept).value(using: ImageResponseSerializer()) }
            #expect(error.flatMap(validationError)?.reason == .unacceptableContentType)
        }
        var withWebP = ImageResponseSerializer()
        withWebP.allowsWebP = true
        let webp = try await s.get("image/webp", headers: accept).value(using: withWebP)
        #expect(webp.format == .webp && webp.width > 0)
    }

    /// Item 66 on the wire, and a Decodable value from /json.
    @Test func compoundAndDecodable() async throws {
        struct Document: Decodable, Sendable { struct Slideshow: Decodable, Sendable { var author: String }; var slideshow: Slideshow }
        let document = try await session().get("json").value(using: DecodableResponseSerializer<Document>())
        #expect(document.slideshow.author == "Yours Truly")
        let compound = CompoundResponseSerializer([ImageResponseSerializer(), JSONResponseSerializer()])
        #expect(try await session().get("json").value(using: compound) is JSONValue?)
        #expect(try await session().get("robots.txt").value(using: compound) is Data)
    }

    /// Item 58 on the wire: httpbin answers with the Content-Type it is asked for.
    @Test func contentTypesFromResponseHeaders() async throws {
        let s = session()
        let accepted = try await s.get("response-headers?Content-Type=text/json").value(using: JSONResponseSerializer())
        // httpbin lists both Content-Type fields it sends; the last one (text/json) counts.
        #expect(accepted?["Content-Type"] == .array(["application/json", "text/json"]))
        let error = await #expect(throws: CourierError.self) {
            _ = try await s.get("response-headers?Content-Type=nonstandard/json").value(using: JSONResponseSerializer())
        }
        #expect(error.flatMap(validationError)?.description == "Request failed: unacceptable content-type: nonstandard/json")
    }
}
