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
        /// The reason's name.
        public var description: String { name }
    }

    /// Why.
    public let reason: Reason
    /// The bound in force, for ``Reason/tooLarge``.
    public let limit: Int?

    /// A single-pass body was asked for a second read, e.g. to follow a 307 redirect or to retry.
    public static let notReplayable = BodyError(reason: .notReplayable, limit: nil)

    /// A body was larger than `limit` bytes, the bound it was collected with.
    public static func tooLarge(limit: Int) -> BodyError {
        BodyError(reason: .tooLarge, limit: limit)
    }

    /// A sentence a user can act on.
    public var description: String {
        switch reason {
        case .tooLarge:
            return "the body is larger than the \(limit ?? 0)-byte limit it was collected with"
        default:
            return "the body can be read only once and was already read; build it as a replayable (.multiple) body to allow redirects and retries"
        }
    }
}
