import CourierCore
import CourierResponseSerialization
import FoundationEssentials

/// The validation both buffered XML serializers share, AFNetworking's: an unacceptable type
/// stops before parsing; a status-only failure still parses, and the error carries the value.
enum XMLResponseValidation {
    /// Validates `response` and its size before parsing. Returns the status error to raise
    /// after parsing, if the status alone failed.
    /// - Throws: the content-type error, or ``XMLError`` (empty, too large).
    static func check(
        _ response: DataResponse, validator: ResponseValidator, maximumBodySize: Int
    ) throws -> ResponseValidationError? {
        let outcome = validator.validate(response)
        if outcome.rejectsContent {
            if let error = outcome.error { throw error }
            // AFNetworking returns no object and no error here (wrong type, empty body);
            // there is no document to return.
            throw XMLError(reason: .empty, message: "the response has no body (and its content type \(response.head.mimeType ?? "none") is not acceptable)")
        }
        if response.data.count > maximumBodySize { throw XMLError.tooLarge(limit: maximumBodySize) }
        return outcome.error
    }

    /// Runs `parse`; on a status failure throws the validation error with the value attached,
    /// or the parse error with the validation error beneath it.
    static func finish<Value: Sendable>(
        statusError: ResponseValidationError?, _ parse: () throws(XMLError) -> Value
    ) throws -> Value {
        let value: Value
        do {
            value = try parse()
        } catch {
            var error = error
            if let statusError { error.underlyingError = statusError }
            throw error
        }
        if var statusError {
            statusError.serializedValue = value
            throw statusError
        }
        return value
    }
}
