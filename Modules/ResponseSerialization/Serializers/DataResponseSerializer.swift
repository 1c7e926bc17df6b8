import CourierCore
import FoundationEssentials

/// AFNetworking's `AFHTTPResponseSerializer`: validates the response and returns its bytes.
///
/// ```swift
/// let bytes = try await session.get("bytes/1024").value(using: DataResponseSerializer())
/// ```
///
/// Any content type is accepted unless ``validator`` names some; a status outside 200–299 throws
/// a ``ResponseValidationError`` carrying the body (also as its `serializedValue`).
public struct DataResponseSerializer: ResponseSerializer {
    /// Status codes and content types that pass.
    public var validator: ResponseValidator
    /// The largest body returned.
    public var maximumBodySize: Int
    /// Runs on the body before it is returned.
    public var dataPreprocessor: (any DataPreprocessor)?

    /// A serializer; every content type passes by default.
    public init(
        validator: ResponseValidator = ResponseValidator(),
        maximumBodySize: Int = Self.defaultMaximumBodySize,
        dataPreprocessor: (any DataPreprocessor)? = nil
    ) {
        self.validator = validator
        self.maximumBodySize = maximumBodySize
        self.dataPreprocessor = dataPreprocessor
    }

    /// The (preprocessed) body of a valid response.
    public func serialize(_ response: DataResponse) throws -> Data {
        try SerializationPipeline(validator: validator, maximumBodySize: maximumBodySize, preprocessor: dataPreprocessor)
            .run(response, refused: Data()) { data in data }
    }
}
