import FoundationEssentials

/// Changes a body before a serializer parses it: strip a prefix, decrypt, unwrap an envelope.
///
/// ```swift
/// var serializer = JSONResponseSerializer()
/// serializer.dataPreprocessor = XSSIPrefixStripper()   // drops Google's )]}',\n
/// ```
public protocol DataPreprocessor: Sendable {
    /// The bytes to parse instead of `data`. Throw to fail the call; the error reaches the caller
    /// inside a ``ResponseSerializationError`` with reason `preprocessingFailed`.
    func preprocess(_ data: Data) throws -> Data
}

/// Removes an anti-XSSI prefix such as `)]}',` and the line break after it, which some APIs put
/// before JSON so a `<script>` tag cannot run it. A body without the prefix is left alone.
public struct XSSIPrefixStripper: DataPreprocessor {
    /// The prefix; `)]}',` by default.
    public var prefix: Data

    /// A stripper for `prefix`.
    public init(prefix: String = ")]}',") {
        self.prefix = Data(prefix.utf8)
    }

    /// `data` without the prefix and one following line break.
    public func preprocess(_ data: Data) throws -> Data {
        guard data.starts(with: prefix) else { return data }
        var rest = data.dropFirst(prefix.count)
        if rest.first == 0x0D { rest = rest.dropFirst() }
        if rest.first == 0x0A { rest = rest.dropFirst() }
        return Data(rest)
    }
}

/// Leaves the body as it is.
public struct PassthroughPreprocessor: DataPreprocessor {
    /// The pass-through preprocessor.
    public init() {}

    /// `data` unchanged.
    public func preprocess(_ data: Data) throws -> Data { data }
}

extension Optional where Wrapped == any DataPreprocessor {
    /// `data` after the preprocessor, when there is one.
    func apply(to data: Data) throws(ResponseSerializationError) -> Data {
        guard let preprocessor = self else { return data }
        do {
            return try preprocessor.preprocess(data)
        } catch {
            throw ResponseSerializationError(.preprocessingFailed, detail: "\(error)", underlyingError: error)
        }
    }
}
