import HTTPTypes

/// When an empty body is a complete answer rather than a missing one: responses to `HEAD`, and
/// `204 No Content` and `205 Reset Content` by default (Alamofire's rule; AFNetworking let every
/// serializer return `nil` for an empty body).
///
/// ```swift
/// var policy = EmptyResponsePolicy()
/// policy.statusCodes.insert(202)   // this API answers 202 with nothing
/// ```
public struct EmptyResponsePolicy: Sendable, Hashable {
    /// Methods whose responses carry no body.
    public var methods: Set<HTTPRequest.Method>
    /// Status codes whose responses may carry no body.
    public var statusCodes: Set<Int>

    /// The policy; `HEAD`, 204 and 205 by default.
    public init(methods: Set<HTTPRequest.Method> = [.head], statusCodes: Set<Int> = [204, 205]) {
        self.methods = methods
        self.statusCodes = statusCodes
    }

    /// True when an empty body is expected for this exchange.
    public func allowsEmptyBody(method: HTTPRequest.Method, status: Int) -> Bool {
        methods.contains(method) || statusCodes.contains(status)
    }
}

extension EmptyResponsePolicy: Codable {
    private enum CodingKeys: String, CodingKey { case methods, statusCodes }

    /// Reads a policy stored by ``encode(to:)``: method names and status codes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let names = try container.decode([String].self, forKey: .methods)
        var methods = Set<HTTPRequest.Method>()
        for name in names {
            guard let method = HTTPRequest.Method(name) else {
                throw DecodingError.dataCorruptedError(forKey: .methods, in: container, debugDescription: "\"\(name)\" is not an HTTP method")
            }
            methods.insert(method)
        }
        self.init(methods: methods, statusCodes: try container.decode(Set<Int>.self, forKey: .statusCodes))
    }

    /// Stores the policy as method names and status codes, sorted so equal policies give equal bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(methods.map(\.rawValue).sorted(), forKey: .methods)
        try container.encode(statusCodes.sorted(), forKey: .statusCodes)
    }
}
