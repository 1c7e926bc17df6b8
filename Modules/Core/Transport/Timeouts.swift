/// Time limits for one exchange. A transport enforces them and fails with
/// ``TransportError/Code/timedOut``.
public struct Timeouts: Sendable, Hashable {
    /// How long establishing a connection (DNS, TCP, TLS) may take.
    public var connect: Duration?
    /// How long the whole exchange may take, body included. 60 s by default, the value of
    /// AFNetworking's `timeoutInterval`, which is an idle timeout: use ``lowSpeedTime`` for that.
    public var request: Duration?
    /// Abort when the transfer moves fewer than ``lowSpeedLimit`` bytes per second for this long.
    public var lowSpeedTime: Duration?
    /// Bytes per second below which ``lowSpeedTime`` counts.
    public var lowSpeedLimit: Int

    /// Time limits; `nil` means no limit.
    public init(
        connect: Duration? = .seconds(30),
        request: Duration? = .seconds(60),
        lowSpeedTime: Duration? = nil,
        lowSpeedLimit: Int = 1
    ) {
        self.connect = connect
        self.request = request
        self.lowSpeedTime = lowSpeedTime
        self.lowSpeedLimit = lowSpeedLimit
    }

    /// 60 s for the whole exchange, 30 s to connect, no low-speed limit.
    public static let `default` = Timeouts()
}
