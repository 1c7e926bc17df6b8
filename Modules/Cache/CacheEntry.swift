import FoundationEssentials
import HTTPTypes

/// A stored response: its head, its whole body, the request header values its `Vary` names, and when it
/// was asked for and received (for its age, RFC 9111 §4.2.3).
struct CacheEntry: Sendable, Equatable {
    /// `GET https://host/path?query`.
    var key: String
    var status: Int
    var reasonPhrase: String
    /// The response's fields, in order.
    var fields: [Field]
    var body: Data
    /// The values the request had for the fields `Vary` names (lower-case names; `nil` for absent).
    var vary: [String: String?]
    var requestTime: Date
    var responseTime: Date

    struct Field: Sendable, Equatable, Codable {
        var name: String
        var value: String
    }

    /// The stored head.
    var head: HTTPResponse {
        var fields = HTTPFields()
        for field in self.fields {
            if let name = HTTPField.Name(field.name) { fields.append(HTTPField(name: name, value: field.value)) }
        }
        return HTTPResponse(status: HTTPResponse.Status(code: status, reasonPhrase: reasonPhrase), headerFields: fields)
    }

    /// All values of the field `name` (names compare case-insensitively).
    func values(_ name: String) -> [String] {
        let name = name.lowercased()
        return fields.filter { $0.name.lowercased() == name }.map(\.value)
    }

    /// The first value of the field `name`.
    func value(_ name: String) -> String? {
        values(name).first
    }

    /// The bytes it takes, roughly: what a storage limit counts.
    var size: Int {
        body.count + key.utf8.count + fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
    }
}

extension CacheEntry {
    init(key: String, response: HTTPResponse, body: Data, vary: [String: String?], requestTime: Date, responseTime: Date) {
        self.key = key
        status = response.status.code
        reasonPhrase = response.status.reasonPhrase
        fields = response.headerFields.map { Field(name: $0.name.rawName, value: $0.value) }
        self.body = body
        self.vary = vary
        self.requestTime = requestTime
        self.responseTime = responseTime
    }
}
