import CourierCore

/// AFNetworking's `AFJSONRequestSerializer`: parameters as a compact JSON body, except for the
/// methods that put them in the URL query.
///
/// ```swift
/// let serialized = try JSONRequestSerializer().serialize(request, parameters: ["key": "value"])
/// // POST body {"key":"value"}, Content-Type: application/json
/// ```
///
/// - A method in ``methodsEncodingParametersInURI`` is handled exactly as by
///   ``HTTPRequestSerializer``: parameters in the query, no body, no `Content-Type`.
/// - Any other method with parameters gets their JSON as the body (see below) and
///   `Content-Type: application/json` unless the request already has a `Content-Type`.
/// - Any other method with `nil` parameters gets neither a body nor a `Content-Type`.
/// - ``defaultHeaderFields`` are added to every request that lacks a field of the same name.
///
/// The JSON is compact, with dictionary keys sorted so equal parameters give equal bytes. `/` is
/// not escaped (`JSONSerialization` writes `\/`; both read the same), `.data` becomes a base64
/// string, and an integral `.double` below 10¹⁶ is written without a fraction (`2`). A set, a NaN
/// or infinite number, or a top level that is neither an array nor a dictionary throws
/// ``RequestSerializationError/Reason/invalidJSON``, whose message starts with AFNetworking's
/// ``The `parameters` argument is not valid JSON.``
public typealias JSONRequestSerializer = BodyRequestSerializer<JSONBody>

/// The compact JSON body of ``JSONRequestSerializer``.
public enum JSONBody: RequestBodyFormat {
    /// `application/json`.
    public static let contentType = "application/json"

    /// The compact JSON of `parameters`.
    ///
    /// - Throws: ``RequestSerializationError/Reason/invalidJSON``.
    public static func encode(_ parameters: Parameters) throws -> [UInt8] {
        try JSONWriter.encode(parameters)
    }
}
