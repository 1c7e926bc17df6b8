import CourierCore
import HTTPTypes

/// What a ``BodyRequestSerializer`` writes as the body of the methods that do not put their
/// parameters in the URL query: JSON (``JSONBody``), a property list (``PropertyListBody``), or
/// a format of your own.
///
/// ```swift
/// enum CSVBody: RequestBodyFormat {
///     static let contentType = "text/csv"
///     static func encode(_ parameters: Parameters) throws -> [UInt8] { … }
/// }
/// let serializer = BodyRequestSerializer<CSVBody>()
/// ```
public protocol RequestBodyFormat: Sendable {
    /// The `Content-Type` set when the request has none.
    static var contentType: String { get }
    /// The body bytes for `parameters`; throw to abort serialization.
    static func encode(_ parameters: Parameters) throws -> [UInt8]
}

/// AFNetworking's subclasses of `AFHTTPRequestSerializer` that write a body
/// (`AFJSONRequestSerializer`, `AFPropertyListRequestSerializer`): ``JSONRequestSerializer`` and
/// ``PropertyListRequestSerializer`` are this type with their ``RequestBodyFormat``.
///
/// - A method in ``methodsEncodingParametersInURI`` is handled exactly as by
///   ``HTTPRequestSerializer``: parameters in the query, no body, no `Content-Type`.
/// - Any other method with parameters gets `Format`'s bytes as the body and its content type
///   unless the request already has a `Content-Type`.
/// - Any other method with `nil` parameters gets neither a body nor a `Content-Type`.
/// - ``defaultHeaderFields`` are added to every request that lacks a field of the same name.
public struct BodyRequestSerializer<Format: RequestBodyFormat>: DefaultHeaderFieldsSerializer {
    /// Methods whose parameters go into the URL query instead of a body; `GET`, `HEAD` and
    /// `DELETE` by default. Compared without regard to ASCII case.
    public var methodsEncodingParametersInURI: Set<HTTPRequest.Method>

    /// Header fields added to every request that lacks a field of the same name; AFNetworking's
    /// `Accept-Language` and `User-Agent` by default (see ``HTTPRequestSerializer/defaultHeaderFields``).
    public var defaultHeaderFields: HTTPFields

    /// Replaces the default query-string rules for the URI methods when set; it never shapes the body.
    public var queryStringBuilder: QueryStringBuilder?

    /// How the query of the URI methods writes arrays, booleans and spaces; AFNetworking's
    /// (`key[]`, `1`/`0`, `%20`) by default. Ignored while ``queryStringBuilder`` is set.
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

    /// `request` with ``defaultHeaderFields`` added and `parameters` in its query or as its body.
    ///
    /// - Throws: `Format`'s error (a ``RequestSerializationError``), or ``queryStringBuilder``'s
    ///   error unchanged.
    public func serialize(_ request: HTTPRequest, parameters: Parameters?) throws -> SerializedRequest {
        try urlEncoding.serialize(request, parameters: parameters, contentType: Format.contentType, encode: Format.encode)
    }
}
