/// The session cannot take the call.
public struct SessionError: Error, Sendable, Hashable, CustomStringConvertible {
    let name: String

    /// `invalidate(cancelingTasks:)` was called; the session takes no new tasks.
    public static let invalidated = SessionError(name: "the session was invalidated and takes no new tasks")

    /// The explanation.
    public var description: String { name }
}
