/// How a throttled form is sent: at most ``packetSize`` bytes per read, then a pause of
/// ``delay`` (AFNetworking's `throttleBandwidthWithPacketSize:delay:`). The pause is a task
/// sleep, so a throttled upload never blocks a thread.
///
/// ```swift
/// var form = MultipartFormData()
/// form.throttle = .mobileNetwork        // 16 KiB, then 0.2 s
/// ```
public struct Throttle: Sendable, Hashable {
    /// AFNetworking's `kAFUploadStream3GSuggestedPacketSize`: 16 KiB.
    public static let suggestedPacketSize = 16_384
    /// AFNetworking's `kAFUploadStream3GSuggestedDelay`: 0.2 s.
    public static let suggestedDelay: Duration = .milliseconds(200)
    /// AFNetworking's suggestion for a 3G link: 16 KiB, then 0.2 s.
    public static let mobileNetwork = Throttle(packetSize: suggestedPacketSize, delay: suggestedDelay)

    /// The most bytes one read hands the transport (at least 1).
    public var packetSize: Int
    /// The pause after each packet.
    public var delay: Duration

    /// A throttle; a `packetSize` below 1 counts as 1.
    public init(packetSize: Int, delay: Duration) {
        self.packetSize = max(1, packetSize)
        self.delay = delay
    }
}
