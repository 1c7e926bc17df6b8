import CourierCore
import HTTPTypes

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
public struct JSONRequestSerializer: DefaultHeaderFieldsSerializer {
    /// Methods whose parameters go into the URL query instead of a body; `GET`, `HEAD` and
    /// `DELETE` by default. Compared without regard to ASCII case.
    public var methodsEncodingParametersInURI: Set<HTTPRequest.Method>

    /// Header fields added to every request that lacks a field of the same name; AFNetworking's
    /// `Accept-Language` and `User-Agent` by default (see ``HTTPRequestSerializer/defaultHeaderFields``).
    public var defaultHeaderFields: HTTPFields

    /// Replaces the default query-string rules for the URI methods when set; it never shapes the
    /// JSON body.
    public var queryStringBuilder: QueryStringBuilder?

    /// How the default rules write arrays, booleans and spaces; AFNetworking's (`key[]`, `1`/`0`,
    /// `%20`) by default. Ignored while ``queryStringBuilder`` is set.
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

    /// `request` with ``defaultHeaderFields`` added and `parameters` in its query or as its JSON body.
    ///
    /// - Throws: a ``RequestSerializationError`` (``RequestSerializationError/Reason/invalidJSON``
    ///   for a body), or ``queryStringBuilder``'s error unchanged.
    public func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
        try urlEncoding.serialize(request, parameters: parameters, contentType: "application/json") { try JSONWriter.encode($0) }
    }
}
