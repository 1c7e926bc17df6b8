/// How far an upload or a download has come: bytes really moved, and the total when known.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Bytes moved so far.
    public var completed: Int64
    /// The expected total, or `nil` while unknown (AFNetworking's `-1`).
    public var total: Int64?

    /// A progress value.
    public init(completed: Int64, total: Int64?) {
        self.completed = completed
        self.total = total
    }

    /// Nothing moved, total unknown.
    public static let zero = TransferProgress(completed: 0, total: nil)

    /// `completed / total`, between 0 and 1; 0 while the total is unknown or zero.
    public var fractionCompleted: Double {
        guard let total, total > 0 else { return 0 }
        return min(1, Double(completed) / Double(total))
    }

    /// True once every expected byte has moved.
    public var isFinished: Bool {
        guard let total else { return false }
        return completed >= total
    }

    /// e.g. `512/1024 bytes` or `512 bytes`.
    public var description: String {
        total.map { "\(completed)/\($0) bytes" } ?? "\(completed) bytes"
    }
}
