/// Time limits for one exchange. A transport enforces them and fails with
/// ``TransportError/Code/timedOut``.
public struct Timeouts: Sendable, Hashable {
    /// How long establishing a connection (DNS, TCP, TLS) may take.
    public var connect: Duration?
    /// How long the whole exchange may take, body included; `nil` (the default) sets no total
    /// limit, so a long download is not cut off.
    public var request: Duration?
    /// Abort when the transfer moves fewer than ``lowSpeedLimit`` bytes per second for this long.
    /// 60 s at 1 byte per second by default: the idle timeout AFNetworking's `timeoutInterval`
    /// (60 s) gives.
    public var lowSpeedTime: Duration?
    /// Bytes per second below which ``lowSpeedTime`` counts.
    public var lowSpeedLimit: Int

    /// Time limits; `nil` means no limit.
    public init(
        connect: Duration? = .seconds(30),
        request: Duration? = nil,
        lowSpeedTime: Duration? = .seconds(60),
        lowSpeedLimit: Int = 1
    ) {
        self.connect = connect
        self.request = request
        self.lowSpeedTime = lowSpeedTime
        self.lowSpeedLimit = lowSpeedLimit
    }

    /// 30 s to connect, no total limit, and 60 s without progress (AFNetworking's idle timeout).
    public static let `default` = Timeouts()
}
