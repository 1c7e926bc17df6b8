import CourierCore
import FoundationEssentials
import HTTPTypes

/// The order every serializer here follows, AFNetworking's: validate; stop when the content type
/// is refused; bound and preprocess the body; parse it; then, when only the status failed, throw
/// the status error with the parsed value inside.
struct SerializationPipeline {
    var validator: ResponseValidator
    var maximumBodySize: Int
    var preprocessor: (any DataPreprocessor)?

    /// The value for `response`.
    ///
    /// - Parameters:
    ///   - refused: The value when validation refuses the content without an error (a wrong
    ///     type and an empty body); `nil` makes that case an error too.
    ///   - parse: Turns the preprocessed body into the value.
    func run<Value: Sendable>(
        _ response: DataResponse,
        refused: Value?,
        parse: (Data) throws(ResponseSerializationError) -> Value
    ) throws -> Value {
        let outcome = validator.validate(response)
        if outcome.rejectsContent {
            if let error = outcome.error { throw error }
            if let refused { return refused }
            throw ResponseValidationError(
                reason: .unacceptableContentType, url: response.request.url?.absoluteString,
                response: response.head, body: response.data
            )
        }
        guard response.data.count <= maximumBodySize else {
            throw ResponseSerializationError(
                .tooLarge, detail: "the body has \(response.data.count) bytes; this serializer reads at most \(maximumBodySize)",
                validationError: outcome.error
            )
        }
        let value: Value
        do {
            value = try parse(try preprocessor.apply(to: response.data))
        } catch {
            var failure = error
            failure.validationError = outcome.error
            throw failure
        }
        if var statusError = outcome.error {
            statusError.serializedValue = value
            throw statusError
        }
        return value
    }
}

extension ResponseSerializer {
    /// 64 MiB: the default bound of a serializer's body.
    public static var defaultMaximumBodySize: Int { 64 * 1024 * 1024 }
}
