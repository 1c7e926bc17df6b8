/// Whether a monitor's target can be reached, and through which interface.
///
/// `unknown` is the status before a monitor has asked the kernel (and after it stops);
/// `reachable` names the interface the kernel would send through and what kind it is.
/// ``afNetworkingStatus`` gives AFNetworking's four-valued view of the same status.
public enum ReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not determined yet: the monitor has not started, or has stopped.
    case unknown
    /// The kernel has no usable route to the target (no route, or its interface is down).
    case notReachable
    /// The kernel has a route to the target through `interface`, which is up and running.
    case reachable(via: InterfaceKind, interface: String)

    /// True for ``reachable(via:interface:)`` (AFNetworking's `isReachable`).
    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    /// The kind of the interface a reachable target is reached through, else `nil`.
    public var interfaceKind: InterfaceKind? {
        if case .reachable(let kind, _) = self { return kind }
        return nil
    }

    /// The name of the interface a reachable target is reached through, else `nil`.
    public var interfaceName: String? {
        if case .reachable(_, let name) = self { return name }
        return nil
    }

    /// `unknown`, `not reachable`, or e.g. `reachable via wired (eth0)` (what `courier
    /// reachability` prints).
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .notReachable: "not reachable"
        case .reachable(let kind, let interface): "reachable via \(kind) (\(interface))"
        }
    }
}

/// The kind of network interface a target is reached through, read from the kernel: the link
/// type (`ARPHRD_*`), `/sys/class/net/<name>/wireless` and the `DEVTYPE` of its `uevent`.
public enum InterfaceKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Ethernet and what looks like it to the kernel: physical NICs, veth pairs, bridges, VLANs, bonds.
    case wired
    /// 802.11 (`DEVTYPE=wlan`, or a `wireless`/`phy80211` entry in sysfs).
    case wireless
    /// A mobile broadband modem (`DEVTYPE=wwan`, or raw-IP links such as qmi_wwan's).
    case cellular
    /// The loopback interface.
    case loopback
    /// Anything else: tunnels, PPP, WireGuard, TUN devices.
    case other

    /// The kind's name, e.g. `wired`.
    public var description: String { rawValue }
}
