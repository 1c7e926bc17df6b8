import CourierCore
import HTTPTypes

/// AFNetworking's `AFHTTPRequestSerializer`: parameters in the URL query for `GET`, `HEAD` and
/// `DELETE`, as an `application/x-www-form-urlencoded` body for every other method.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.requestSerializer = HTTPRequestSerializer()
/// // GET /search?q=a%20b    POST /items with body "name=x&tags%5B%5D=1"
/// ```
///
/// - A method in ``methodsEncodingParametersInURI`` (compared without regard to case, so `get`
///   counts as `GET`) gets the query string added to the request's path: after `&` when the path
///   has a query, after `?` otherwise. An empty query string leaves the path unchanged. No body.
/// - Any other method always gets a body, even with `nil` parameters (then an empty one, so a
///   transport sends `Content-Length: 0`), and `Content-Type: application/x-www-form-urlencoded`
///   unless the request already has a `Content-Type`.
/// - The query string follows ``QueryString``'s rules with ``queryOptions``, or
///   ``queryStringBuilder`` when set.
///   Text is always UTF-8 (AFNetworking's default `stringEncoding`).
/// - ``defaultHeaderFields`` (AFNetworking's `Accept-Language` and `User-Agent` unless you pass
///   others) are added to every request that lacks a field of the same name, so a session's or
///   a call's own header fields win.
public struct HTTPRequestSerializer: DefaultHeaderFieldsSerializer {
    /// Methods whose parameters go into the URL query instead of a body; `GET`, `HEAD` and
    /// `DELETE` by default. Compared without regard to ASCII case.
    public var methodsEncodingParametersInURI: Set<HTTPRequest.Method>

    /// Header fields added to every request that lacks a field of the same name.
    ///
    /// By default AFNetworking's `Accept-Language` and `User-Agent`, built from the process
    /// (``CourierCore/HTTPFields/courierDefaults(version:)``); pass `[:]` to the initializer for
    /// none. Change them with ``DefaultHeaderFieldsSerializer/setValue(_:forHeader:)`` and the
    /// authorization helpers, or directly:
    /// `serializer.defaultHeaderFields[.userAgent] = "MyApp/1.0 (Linux)"`.
    public var defaultHeaderFields: HTTPFields

    /// Replaces the default query-string rules when set; its error aborts serialization and
    /// reaches the caller unchanged.
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

    /// True when `method`'s parameters go into the URL query (compared without regard to case).
    public func encodesParametersInURI(_ method: HTTPRequest.Method) -> Bool {
        methodsEncodingParametersInURI.containsIgnoringCase(method)
    }

    /// The query string for `parameters`: ``queryStringBuilder``'s when set, otherwise
    /// ``QueryString/encode(_:options:)``'s with ``queryOptions``.
    ///
    /// - Throws: the builder's error unchanged, or a ``RequestSerializationError``.
    public func queryString(for parameters: Parameters) throws -> String {
        if let queryStringBuilder {
            return try queryStringBuilder(parameters)
        }
        return try QueryString.encode(parameters, options: queryOptions)
    }

    /// `request` with ``defaultHeaderFields`` added and `parameters` in its query or its form body.
    ///
    /// - Throws: ``queryStringBuilder``'s error unchanged, or a ``RequestSerializationError``
    ///   when the default rules cannot encode `parameters`.
    public func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
        var request = request
        request.headerFields.addMissing(defaultHeaderFields)

        if encodesParametersInURI(request.method) {
            if let parameters {
                request.appendQuery(try queryString(for: parameters))
            }
            return SerializedRequest(request: request, body: nil)
        }

        let form = try parameters.map { try queryString(for: $0) } ?? ""
        if request.headerFields[.contentType] == nil {
            request.headerFields[.contentType] = "application/x-www-form-urlencoded"
        }
        return SerializedRequest(request: request, body: Body(form))
    }
}
