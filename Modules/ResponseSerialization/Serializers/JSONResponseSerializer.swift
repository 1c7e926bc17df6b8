import CourierCore
import FoundationEssentials

/// AFNetworking's `AFJSONResponseSerializer`: validates, then parses the body as JSON into a
/// ``JSONValue``.
///
/// ```swift
/// var serializer = JSONResponseSerializer()
/// serializer.removesKeysWithNullValues = true
/// let json = try await session.get("json").value(using: serializer)   // JSONValue?
/// ```
///
/// - Acceptable types: `application/json`, `text/json`, `text/javascript`.
/// - An empty body, or one of exactly one space, gives `nil` without an error (AFNetworking's
///   rule for servers that answer `head :ok` with a space); two spaces are a parse error.
/// - A `charset` other than UTF-8 (UTF-16, UTF-32, Latin-1…) is converted to UTF-8 first; one
///   Courier does not know is read as UTF-8 (RFC 8259 defines no charset for JSON).
/// - A parse failure is a ``ResponseSerializationError`` with reason `invalidJSON`, the line and
///   column, and any status failure as its `validationError`.
/// - A status-only failure still parses: the thrown ``ResponseValidationError`` carries the
///   parsed value (e.g. an API's error document) in `serializedValue`.
public struct JSONResponseSerializer: ResponseSerializer {
    /// AFNetworking's acceptable types.
    public static let defaultContentTypes: Set<String> = ["application/json", "text/json", "text/javascript"]

    /// Status codes and content types that pass.
    public var validator: ResponseValidator
    /// Drops null object members and null array elements, recursively (AFNetworking's
    /// `removesKeysWithNullValues`); off by default.
    public var removesKeysWithNullValues: Bool
    /// Accepts a top level that is a string, number, boolean or null (`NSJSONReadingFragmentsAllowed`);
    /// off by default, as AFNetworking's reading options are 0.
    public var allowsFragments: Bool
    /// The largest body parsed.
    public var maximumBodySize: Int
    /// Runs on the body before parsing (e.g. ``XSSIPrefixStripper``).
    public var dataPreprocessor: (any DataPreprocessor)?

    /// A serializer with AFNetworking's defaults.
    public init(
        validator: ResponseValidator = ResponseValidator(acceptableContentTypes: Self.defaultContentTypes),
        removesKeysWithNullValues: Bool = false,
        allowsFragments: Bool = false,
        maximumBodySize: Int = Self.defaultMaximumBodySize,
        dataPreprocessor: (any DataPreprocessor)? = nil
    ) {
        self.validator = validator
        self.removesKeysWithNullValues = removesKeysWithNullValues
        self.allowsFragments = allowsFragments
        self.maximumBodySize = maximumBodySize
        self.dataPreprocessor = dataPreprocessor
    }

    /// The parsed body; `nil` for an empty or single-space body, or a refused empty one.
    public func serialize(_ response: DataResponse) throws -> JSONValue? {
        let charset = response.head.charset
        return try SerializationPipeline(validator: validator, maximumBodySize: maximumBodySize, preprocessor: dataPreprocessor)
            .run(response, refused: .some(JSONValue?.none)) { data throws(ResponseSerializationError) -> JSONValue? in
                if data.isEmpty || (data.count == 1 && data.first == 0x20) { return nil }
                return try parse(TextEncoding.utf8Bytes(of: data, charset: charset))
            }
    }

    /// Parses UTF-8 JSON with this serializer's options.
    func parse(_ data: Data) throws(ResponseSerializationError) -> JSONValue {
        do {
            let options = JSONParser.Options(allowsFragments: allowsFragments, removesNulls: removesKeysWithNullValues)
            return try JSONParser.parse(data, options: options)
        } catch {
            throw ResponseSerializationError(
                .invalidJSON, detail: error.message, line: error.line, column: error.column, offset: error.offset
            )
        }
    }
}
