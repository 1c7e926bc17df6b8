import CourierCore
import FoundationEssentials
import HTTPTypes

/// A request serializer that adds its ``defaultHeaderFields`` to every request lacking them, with
/// AFNetworking's helpers to set them (`setValue:forHTTPHeaderField:`,
/// `setAuthorizationHeaderFieldWithUsername:password:`, `clearAuthorizationHeader`).
///
/// ```swift
/// var serializer = JSONRequestSerializer()
/// try serializer.setValue("2", forHeader: "X-API-Version")
/// serializer.setAuthorization(username: "user", password: "password")
/// // every request: X-API-Version: 2, Authorization: Basic dXNlcjpwYXNzd29yZA==
/// ```
///
/// Serializers are values: set them up, then hand a copy to a session; changing your copy later
/// changes nothing already handed over, so no lock is needed (AFNetworking guards its mutable
/// dictionary with a queue instead).
///
/// To conform, store the fields:
///
/// ```swift
/// struct CSVSerializer: DefaultHeaderFieldsSerializer {
///     var defaultHeaderFields: HTTPFields = .courierDefaults()
///     func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest { … }
/// }
/// ```
public protocol DefaultHeaderFieldsSerializer: RequestSerializer {
    /// Header fields added to every request that lacks a field of the same name.
    var defaultHeaderFields: HTTPFields { get set }
}

extension DefaultHeaderFieldsSerializer {
    /// Sets the default value of the header `name`, replacing any values it had; `nil` removes it.
    ///
    /// - Throws: ``CourierCore/InvalidRequestError`` with reason `invalidHeaderName` when `name`
    ///   is not a token, or `invalidHeaderValue` when `value` holds CR, LF or NUL (header
    ///   injection) or other control characters; the error names the header. Nothing changes then.
    public mutating func setValue(_ value: String?, forHeader name: String) throws(InvalidRequestError) {
        // Validating with an empty value checks the name alone, with Core's wording.
        let field = try HTTPField.validated(name: name, value: value ?? "")
        if value == nil {
            defaultHeaderFields[field.name] = nil
        } else {
            defaultHeaderFields[fields: field.name] = [field]
        }
    }

    /// The default value of the header `name` (several values joined by `, `), or `nil` when
    /// there is none or `name` is not a valid header name.
    public func value(forHeader name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        return defaultHeaderFields[fieldName]
    }

    /// Sets `Authorization: Basic <base64 of "username:password">`, in one line (RFC 7617).
    ///
    /// The header is built from base64 text, so no input can inject a header. A colon in
    /// `username` cannot be told apart from the separator by the server: RFC 7617 forbids it.
    public mutating func setAuthorization(username: String, password: String) {
        defaultHeaderFields[.authorization] = BasicCredentials.fieldValue(user: username, password: password)
    }

    /// Sets `Authorization: Bearer <token>` (RFC 6750).
    ///
    /// - Throws: ``CourierCore/InvalidRequestError`` with reason `invalidHeaderValue` when
    ///   `token` holds CR, LF, NUL or other control characters; nothing changes then.
    public mutating func setBearerToken(_ token: String) throws(InvalidRequestError) {
        let field = try HTTPField.validated(name: HTTPField.Name.authorization.rawName, value: "Bearer " + token)
        defaultHeaderFields[fields: .authorization] = [field]
    }

    /// Removes the default `Authorization` header.
    public mutating func clearAuthorizationHeader() {
        defaultHeaderFields[.authorization] = nil
    }
}
