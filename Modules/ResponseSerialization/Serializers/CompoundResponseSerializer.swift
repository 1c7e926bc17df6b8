import CourierCore
import FoundationEssentials

/// AFNetworking's `AFCompoundResponseSerializer`: tries serializers in order and returns the first
/// value one yields; when none does, falls back to plain validation with its own
/// ``validator`` and returns the raw body.
///
/// ```swift
/// let serializer = CompoundResponseSerializer([ImageResponseSerializer(), JSONResponseSerializer()])
/// let value = try await session.get("json").value(using: serializer)
/// if let json = value as? JSONValue? { … } else if let image = value as? ImageInfo { … } else if let raw = value as? Data { … }
/// ```
///
/// A serializer "yields a value" when it returns a non-`nil` value, or when it fails only on the
/// status code with the parsed value attached (that error is rethrown, value and all, as
/// AFNetworking returned both). Other failures pass the turn to the next serializer.
public struct CompoundResponseSerializer: ResponseSerializer {
    /// The serializers, in the order they are tried.
    public var serializers: [any ResponseSerializer]
    /// The fallback's validation; any content type by default, so the raw body comes back.
    public var validator: ResponseValidator

    /// A compound of `serializers`, tried in order.
    public init(_ serializers: [any ResponseSerializer], validator: ResponseValidator = ResponseValidator()) {
        self.serializers = serializers
        self.validator = validator
    }

    /// The first value a serializer yields, or the validated raw body.
    public func serialize(_ response: DataResponse) throws -> any Sendable {
        for serializer in serializers {
            do {
                let value = try Self.run(serializer, on: response)
                if !Self.isNone(value) { return value }
            } catch let error as ResponseValidationError where error.serializedValue.map({ !Self.isNone($0) }) ?? false {
                throw error
            } catch {
                continue
            }
        }
        return try DataResponseSerializer(validator: validator).serialize(response)
    }

    private static func run(_ serializer: some ResponseSerializer, on response: DataResponse) throws -> any Sendable {
        try serializer.serialize(response)
    }

    /// True for an optional holding nothing, however it is boxed.
    private static func isNone(_ value: any Sendable) -> Bool {
        let mirror = Mirror(reflecting: value)
        return mirror.displayStyle == .optional && mirror.children.isEmpty
    }
}
