/// What a ``ReachabilityMonitor`` watches.
public enum ReachabilityTarget: Sendable, Hashable, CustomStringConvertible {
    /// The host as a whole: reachable when the kernel has a default route (IPv4 or IPv6) whose
    /// interface is up and running. AFNetworking's `+manager` (the zero address).
    case anyNetwork
    /// A host name, resolved with `getaddrinfo` off the caller's thread and again whenever the
    /// network changes; reachable when the kernel has a route to one of its addresses.
    /// AFNetworking's `+managerForDomain:`.
    case host(String)
    /// One address; reachable when the kernel has a route to it. AFNetworking's
    /// `+managerForAddress:`. The unspecified address (`0.0.0.0`, `::`) means ``anyNetwork``.
    case address(IPAddress)

    /// A target from command-line style text: empty means ``anyNetwork``, an IP address
    /// ``address(_:)``, anything else ``host(_:)``.
    public init(parsing text: String) {
        if text.isEmpty {
            self = .anyNetwork
        } else if let address = IPAddress(text) {
            self = address.isUnspecified ? .anyNetwork : .address(address)
        } else {
            self = .host(text)
        }
    }

    /// `any network`, the host name, or the address.
    public var description: String {
        switch self {
        case .anyNetwork: "any network"
        case .host(let name): name
        case .address(let address): address.description
        }
    }
}
