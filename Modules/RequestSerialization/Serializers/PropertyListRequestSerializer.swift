import CourierCore
import HTTPTypes

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
public struct PropertyListRequestSerializer: DefaultHeaderFieldsSerializer {
    /// Methods whose parameters go into the URL query instead of a body; `GET`, `HEAD` and
    /// `DELETE` by default. Compared without regard to ASCII case.
    public var methodsEncodingParametersInURI: Set<HTTPRequest.Method>

    /// Header fields added to every request that lacks a field of the same name; AFNetworking's
    /// `Accept-Language` and `User-Agent` by default (see ``HTTPRequestSerializer/defaultHeaderFields``).
    public var defaultHeaderFields: HTTPFields

    /// Replaces the default query-string rules for the URI methods when set; it never shapes the
    /// property-list body.
    public var queryStringBuilder: QueryStringBuilder?

    /// How the query of the URI methods writes arrays, booleans and spaces.
    public var queryOptions: QueryString.Options

    /// A serializer; the defaults are AFNetworking's.
    public init(
        methodsEncodingParametersInURI: Set<HTTPRequest.Method> = [.get, .head, .delete],
        defaultHeaderFields: HTTPFields = .courierDefaults(),
        queryStringBuilder: QueryStringBuilder? = nil,
        queryOptions: QueryString.Options = .default
    ) {
        self.methodsEncodingParametersInURI = methodsEncodingParametersInURI
        self.defaultHeaderFields = defaultHeaderFields
        self.queryStringBuilder = queryStringBuilder
        self.queryOptions = queryOptions
    }

    /// The URL-encoding serializer with the same settings, which handles the URI methods.
    private var urlEncoding: HTTPRequestSerializer {
        HTTPRequestSerializer(
            methodsEncodingParametersInURI: methodsEncodingParametersInURI,
            defaultHeaderFields: defaultHeaderFields,
            queryStringBuilder: queryStringBuilder,
            queryOptions: queryOptions
        )
    }

    /// `request` with ``defaultHeaderFields`` added and `parameters` in its query or as its
    /// property-list body.
    ///
    /// - Throws: a ``RequestSerializationError`` (``RequestSerializationError/Reason/invalidPropertyList``
    ///   for a body), or ``queryStringBuilder``'s error unchanged.
    public func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
        try urlEncoding.serialize(request, parameters: parameters, contentType: "application/x-plist") { try PropertyListWriter.encode($0) }
    }
}
