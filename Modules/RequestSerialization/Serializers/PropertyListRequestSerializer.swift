import CourierCore

/// AFNetworking's `AFPropertyListRequestSerializer`: parameters as an XML property list body
/// (format v1.0), except for the methods that put them in the URL query.
///
/// ```swift
/// let serialized = try PropertyListRequestSerializer().serialize(request, parameters: ["key": "value"])
/// // POST body <?xml …?><!DOCTYPE plist …><plist version="1.0"><dict><key>key</key>…, Content-Type: application/x-plist
/// ```
///
/// - A method in ``methodsEncodingParametersInURI`` is handled exactly as by
///   ``HTTPRequestSerializer``: parameters in the query, no body, no `Content-Type`.
/// - Any other method with parameters gets their property list as the body and
///   `Content-Type: application/x-plist` unless the request already has a `Content-Type`.
/// - Any other method with `nil` parameters gets neither a body nor a `Content-Type`.
/// - ``defaultHeaderFields`` are added to every request that lacks a field of the same name.
///
/// The XML is laid out as Apple's writer does, dictionary keys sorted. `.null` (a property list
/// has no null) and `.set` (no unordered collection), or a string with a control character XML
/// cannot carry, throw ``RequestSerializationError/Reason/invalidPropertyList`` naming the place
/// in the tree. NaN and infinities are written as Apple writes them (`nan`, `+infinity`,
/// `-infinity`), since Apple's reader takes them back. Dictionary keys are always strings here
/// (``CourierCore/Parameters`` has no other), so AFNetworking's failure for a non-string key
/// cannot arise.
public typealias PropertyListRequestSerializer = BodyRequestSerializer<PropertyListBody>

/// The XML property-list body of ``PropertyListRequestSerializer``.
public enum PropertyListBody: RequestBodyFormat {
    /// `application/x-plist`.
    public static let contentType = "application/x-plist"

    /// The XML property list (format v1.0) of `parameters`.
    ///
    /// - Throws: ``RequestSerializationError/Reason/invalidPropertyList``.
    public static func encode(_ parameters: Parameters) throws -> [UInt8] {
        try PropertyListWriter.encode(parameters)
    }
}
