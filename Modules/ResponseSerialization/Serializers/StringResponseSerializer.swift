import CourierCore
import FoundationEssentials

/// Validates, then decodes the body as text: in the response's `charset`, or in
/// ``forcedEncoding`` when set, or UTF-8 when the response names none (RFC 7231 dropped
/// HTTP/1.1's old ISO-8859-1 default; the web and JSON APIs send UTF-8).
///
/// ```swift
/// let page = try await session.get("html").value(using: StringResponseSerializer())
/// ```
///
/// Bytes that are not valid in the encoding throw ``ResponseSerializationError/Reason/invalidEncoding``
/// with their offset; an unknown charset throws ``ResponseSerializationError/Reason/unsupportedEncoding``.
/// An empty body is the empty string.
public struct StringResponseSerializer: ResponseSerializer {
    /// Status codes and content types that pass; any type by default.
    public var validator: ResponseValidator
    /// Decodes with this encoding whatever the response says.
    public var forcedEncoding: TextEncoding?
    /// The largest body decoded.
    public var maximumBodySize: Int
    /// Runs on the body before decoding.
    public var dataPreprocessor: (any DataPreprocessor)?

    /// A serializer.
    public init(
        validator: ResponseValidator = ResponseValidator(),
        forcedEncoding: TextEncoding? = nil,
        maximumBodySize: Int = Self.defaultMaximumBodySize,
        dataPreprocessor: (any DataPreprocessor)? = nil
    ) {
        self.validator = validator
        self.forcedEncoding = forcedEncoding
        self.maximumBodySize = maximumBodySize
        self.dataPreprocessor = dataPreprocessor
    }

    /// The body as text.
    public func serialize(_ response: DataResponse) throws -> String {
        let forced = forcedEncoding
        let charset = response.head.charset
        return try SerializationPipeline(validator: validator, maximumBodySize: maximumBodySize, preprocessor: dataPreprocessor)
            .run(response, refused: "") { data throws(ResponseSerializationError) in
                // Resolved after validation: a 404 keeps its status error, an empty body its "".
                if data.isEmpty { return "" }
                let encoding: TextEncoding
                if let forced { encoding = forced } else { encoding = try Self.encoding(named: charset) }
                return try encoding.decode(data)
            }
    }

    private static func encoding(named charset: String?) throws(ResponseSerializationError) -> TextEncoding {
        guard let charset else { return .utf8 }
        guard let encoding = TextEncoding(charset: charset) else {
            throw ResponseSerializationError(.unsupportedEncoding, detail: "the response's charset \(charset) is not one Courier decodes; set forcedEncoding to read it as another")
        }
        return encoding
    }
}
