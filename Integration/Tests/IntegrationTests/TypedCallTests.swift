import CourierCore
import CourierCurl
import Courier
import CourierResponseSerialization
import Foundation
import HTTPTypes
import Testing

/// The one-line typed calls against httpbin (issue 13, part 1).
@Suite("Typed calls")
struct TypedCallTests {
    struct Slideshow: Decodable, Sendable { var title: String; var author: String }
    struct Document: Decodable, Sendable { var slideshow: Slideshow }
    struct NewUser: Codable, Sendable, Equatable { var name: String; var signedUpAt: Date }
    /// httpbin's echo of a request: the JSON body it received, and the query.
    struct Echo<Payload: Decodable & Sendable>: Decodable, Sendable { var json: Payload?; var args: [String: String]; var method: String }

    private var api: Session {
        session { configuration in
            configuration.headers[HTTPField.Name("X-Client")!] = "courier-tests"
            configuration.requestSerializer = HTTPRequestSerializer()
        }
    }

    @Test func getDecodesJSON() async throws {
        let document = try await api.get("json", as: Document.self)
        #expect(document.slideshow.title == "Sample Slide Show")
        let echo = try await api.get("anything", parameters: ["q": "a b"], as: Echo<String>.self)
        #expect(echo.args == ["q": "a b"] && echo.method == "GET")
    }

    @Test func postEncodesWithYourEncoder() async throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let user = NewUser(name: "Ada", signedUpAt: Date(timeIntervalSince1970: 1_700_000_000))
        let echo = try await api.post("anything", json: user, encoder: encoder, as: Echo<NewUser>.self, decoder: decoder)
        #expect(echo.json == user && echo.method == "POST")
        let put = try await api.put("anything", json: ["k": 1], as: Echo<[String: Int]>.self)
        #expect(put.json == ["k": 1] && put.method == "PUT")
    }

    @Test func validationAndKinds() async throws {
        let error = await #expect(throws: CourierError.self) { try await api.get("status/418", as: Document.self) }
        #expect(error?.unacceptableStatus == .init(code: 418))
        let html = await #expect(throws: CourierError.self) { try await api.get("html", as: Document.self) }
        #expect(html?.kind == .unacceptableContentType)
    }

    @Test func aPerCallDeadline() async throws {
        let error = await #expect(throws: CourierError.self) {
            try await api.get("delay/10", options: RequestOptions(deadline: .seconds(2)), as: Document.self)
        }
        #expect(error?.kind == .timedOut)
    }

    @Test func aHandleDecodesWithProgress() async throws {
        let task = try api.get("json")
        let document = try await task.value(as: Document.self)
        #expect(document.slideshow.author == "Yours Truly")
        #expect(task.downloadProgress.completed > 0 && task.state == .completed)
        let error = await #expect(throws: CourierError.self) { try await api.get("status/503").value(as: Document.self) }
        #expect(error?.unacceptableStatus == .serviceUnavailable)
    }
}
