import CourierCore
import CourierResponseSerialization
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// The one-line typed calls (issue 13, part 1), each in one line as a new user writes it.
@Suite struct TypedCallTests {
    struct User: Codable, Sendable, Equatable {
        var id: Int
        var fullName: String
    }

    /// Writes a dictionary of strings as the query, to show the session's serializer is applied.
    struct QuerySerializer: RequestSerializer {
        func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
            var request = request
            if case .dictionary(let values)? = parameters {
                let query = values.sorted { $0.key < $1.key }.map { key, value in
                    if case .string(let text) = value { "\(key)=\(text)" } else { "\(key)=?" }
                }.joined(separator: "&")
                request.path = (request.path ?? "/") + "?" + query
            }
            return SerializedRequest(request: request, body: nil)
        }
    }

    private let transport = MockTransport { request in
        switch (request.method, request.head.path ?? "") {
        case (.get, "/v1/users/1"), (.get, "/v1/users/1?fields=all"):
            .json(#"{"id":1,"fullName":"Ada Lovelace"}"#)
        case (.post, "/v1/users"):
            .json(String(decoding: request.body ?? Data(), as: UTF8.self).replacing("\"id\":0", with: "\"id\":7"), status: .created)
        case (.get, "/v1/users/404"): .json(#"{"error":"no such user"}"#, status: .notFound)
        case (.get, "/v1/broken"): .json(#"{"id":"one"}"#)
        case (.get, "/v1/slow"): .json("{}", delay: .seconds(300))
        case (.delete, "/v1/users/1"): .status(.noContent)
        default: .status(.internalServerError)
        }
    }

    private var api: Session {
        var configuration = SessionConfiguration(baseURL: URL(string: "http://mock.test/v1"))
        configuration.headers[.authorization] = "Bearer t"
        configuration.requestSerializer = QuerySerializer()
        return Session(configuration: configuration, transport: transport)
    }

    @Test func getDecodesADecodable() async throws {
        let user = try await api.get("users/1", as: User.self)
        #expect(user == User(id: 1, fullName: "Ada Lovelace"))
        // The session's base URL, headers and request serializer were honoured.
        #expect(try await api.get("users/1", parameters: ["fields": "all"], as: User.self).id == 1)
        let sent = transport.requests.map(\.head)
        #expect(sent.map(\.path) == ["/v1/users/1", "/v1/users/1?fields=all"])
        #expect(sent.allSatisfy { $0.headerFields[.authorization] == "Bearer t" })
    }

    @Test func postEncodesWithYourEncoderAndDecodesTheAnswer() async throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let created = try await api.post("users", json: User(id: 0, fullName: "Ada"), encoder: encoder, as: User.self, decoder: decoder)
        #expect(created == User(id: 7, fullName: "Ada"))
        let sent = try #require(transport.requests.last)
        #expect(sent.body == Data(#"{"full_name":"Ada","id":0}"#.utf8))
        #expect(sent.head.headerFields[.contentType] == "application/json")
        #expect(sent.head.headerFields[.authorization] == "Bearer t")
    }

    @Test func aPerCallDeadline() async throws {
        let error = await #expect(throws: CourierError.self) {
            try await api.get("slow", options: RequestOptions(deadline: .milliseconds(200)), as: User.self)
        }
        #expect(error?.kind == .timedOut)
    }

    @Test func failuresSayTheirKind() async throws {
        let missing = await #expect(throws: CourierError.self) { try await api.get("users/404", as: User.self) }
        #expect(missing?.unacceptableStatus == .notFound)
        #expect(missing?.responseBody == Data(#"{"error":"no such user"}"#.utf8))
        let broken = await #expect(throws: CourierError.self) { try await api.get("broken", as: User.self) }
        #expect(broken?.kind == .serializationFailed)

        struct Reading: Encodable { var value = Double.nan }
        let before = transport.requests.count
        let unencodable = await #expect(throws: CourierError.self) { try await api.post("users", json: Reading(), as: User.self) }
        #expect(unencodable?.kind == .invalidRequest)
        #expect(unencodable?.underlyingError is RequestBodyEncodingError)
        #expect(transport.requests.count == before)  // nothing was sent
    }

    @Test func deleteWithAnEmptyAnswer() async throws {
        #expect(try await api.delete("users/1", as: Empty.self) == .value)
    }

    @Test func cancellingTheCallerCancelsTheCall() async throws {
        let api = self.api
        let call = Task { try await api.get("slow", as: User.self) }
        try await Task.sleep(for: .milliseconds(50))
        call.cancel()
        let error = await #expect(throws: CourierError.self) { try await call.value }
        #expect(error?.kind == .cancelled)
    }

    @Test func theStructuredDataAndValueForms() async throws {
        let response = try await api.data(.get, "users/1")
        #expect(response.status == .ok && response.request.path == "/v1/users/1")
        let missing = try await api.data(.get, "users/404")
        #expect(missing.status == .notFound)  // no validation on the raw form
        #expect(try await api.value(.get, "users/1", using: DecodableResponseSerializer<User>()).fullName == "Ada Lovelace")
    }

    @Test func aHandleGivesATypedValueToo() async throws {
        let task = try api.get("users/1", parameters: ["fields": "all"])
        #expect(try await task.value(as: User.self) == User(id: 1, fullName: "Ada Lovelace"))
        #expect(transport.requests.last?.head.path == "/v1/users/1?fields=all")
        // Validated as the one-liners are: a 404 is a status failure, a body that does not decode a serialization one.
        let missing = await #expect(throws: CourierError.self) { try await api.get("users/404").value(as: User.self) }
        #expect(missing?.unacceptableStatus == .notFound)
        let broken = await #expect(throws: CourierError.self) { try await api.get("broken").value(as: User.self) }
        #expect(broken?.kind == .serializationFailed)
    }
}
