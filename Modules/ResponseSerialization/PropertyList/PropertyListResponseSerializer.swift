import CourierCore
import FoundationEssentials

/// AFNetworking's `AFPropertyListResponseSerializer`: validates, then parses an XML or binary
/// property list into a ``PropertyListValue``.
///
/// ```swift
/// let settings = try await session.get("settings.plist").value(using: PropertyListResponseSerializer())
/// ```
///
/// Acceptable type: `application/x-plist`. An empty body gives `nil`; anything that is not a
/// property list (JSON, HTML, a truncated document) is
/// ``ResponseSerializationError/Reason/invalidPropertyList`` with the parser's reason.
public struct PropertyListResponseSerializer: ResponseSerializer {
    /// AFNetworking's acceptable type.
    public static let defaultContentTypes: Set<String> = ["application/x-plist"]

    /// Status codes and content types that pass.
    public var validator: ResponseValidator
    /// The largest body parsed.
    public var maximumBodySize: Int
    /// Runs on the body before parsing.
    public var dataPreprocessor: (any DataPreprocessor)?

    /// A serializer with AFNetworking's defaults.
    public init(
        validator: ResponseValidator = ResponseValidator(acceptableContentTypes: Self.defaultContentTypes),
        maximumBodySize: Int = Self.defaultMaximumBodySize,
        dataPreprocessor: (any DataPreprocessor)? = nil
    ) {
        self.validator = validator
        self.maximumBodySize = maximumBodySize
        self.dataPreprocessor = dataPreprocessor
    }

    /// The parsed property list; `nil` for an empty body.
    public func serialize(_ response: DataResponse) throws -> PropertyListValue? {
        try SerializationPipeline(validator: validator, maximumBodySize: maximumBodySize, preprocessor: dataPreprocessor)
            .run(response, refused: .some(PropertyListValue?.none)) { data throws(ResponseSerializationError) -> PropertyListValue? in
                if data.isEmpty { return nil }
                try PropertyListDepthCheck.check(data)
                do {
                    return try PropertyListDecoder().decode(PropertyListValue.self, from: data)
                } catch {
                    let reason = (error as? DecodingError).map(Self.describe) ?? "\(error)"
                    throw ResponseSerializationError(.invalidPropertyList, detail: reason, underlyingError: error)
                }
            }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            return [context.debugDescription, context.underlyingError.map { "\($0)" }].compactMap { $0 }.joined(separator: ": ")
        @unknown default:
            return "\(error)"
        }
    }
}
