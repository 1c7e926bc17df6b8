/// A body could not be read as asked.
public enum BodyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A single-pass body was asked for a second read, e.g. to follow a 307 redirect or to retry.
    case notReplayable
    /// A body was larger than the bound it was collected with.
    case tooLarge(limit: Int)

    /// A sentence a user can act on.
    public var description: String {
        switch self {
        case .notReplayable:
            return "the body can be read only once and was already sent; build it as a replayable (.multiple) body to allow redirects and retries"
        case .tooLarge(let limit):
            return "the body is larger than the \(limit)-byte limit it was collected with"
        }
    }
}
