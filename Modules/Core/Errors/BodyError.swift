/// A body could not be read as asked.
///
/// A struct with a reason rather than an enum, so new reasons never break a `switch`.
public struct BodyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the body could not be read.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// A single-pass body was asked for a second read.
        public static let notReplayable = Reason(name: "not replayable")
        /// A body was larger than the bound it was collected with.
        public static let tooLarge = Reason(name: "too large")
        /// A request body produced more or fewer bytes than the length it declared (``Body/Length/known(_:)``).
        public static let lengthMismatch = Reason(name: "length mismatch")
        /// The reason's name.
        public var description: String { name }
    }

    /// Why.
    public let reason: Reason
    /// The bound in force, for ``Reason/tooLarge``.
    public let limit: Int?
    /// For ``Reason/lengthMismatch``: the length the body declared, and the bytes it produced (when it produced
    /// too many, as far as the first chunk past the length).
    public let declaredLength: Int64?
    /// See ``declaredLength``.
    public let producedLength: Int64?

    private init(reason: Reason, limit: Int? = nil, declaredLength: Int64? = nil, producedLength: Int64? = nil) {
        self.reason = reason
        self.limit = limit
        self.declaredLength = declaredLength
        self.producedLength = producedLength
    }

    /// A single-pass body was asked for a second read, e.g. to follow a 307 redirect or to retry.
    public static let notReplayable = BodyError(reason: .notReplayable)

    /// A body was larger than `limit` bytes, the bound it was collected with.
    public static func tooLarge(limit: Int) -> BodyError {
        BodyError(reason: .tooLarge, limit: limit)
    }

    /// A request body declared `declared` bytes and produced `produced`: sending it would have cut it, or put
    /// bytes past `Content-Length` on the connection, where they would be read as the start of the next request.
    public static func lengthMismatch(declared: Int64, produced: Int64) -> BodyError {
        BodyError(reason: .lengthMismatch, declaredLength: declared, producedLength: produced)
    }

    /// A sentence a user can act on.
    public var description: String {
        switch reason {
        case .tooLarge:
            return "the body is larger than the \(limit ?? 0)-byte limit it was collected with"
        case .lengthMismatch:
            let produced = producedLength ?? 0, declared = declaredLength ?? 0
            return produced > declared
                ? "the request body declared \(declared) bytes and produced more (\(produced) so far); nothing past its length was sent"
                : "the request body declared \(declared) bytes and ended after \(produced)"
        default:
            return "the body can be read only once and was already read; build it as a replayable (.multiple) body to allow redirects and retries"
        }
    }
}
