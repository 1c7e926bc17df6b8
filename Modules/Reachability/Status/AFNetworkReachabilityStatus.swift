/// AFNetworking's view of reachability (`AFNetworkReachabilityStatus`), with its raw values and
/// strings, for code ported from AFNetworking.
///
/// Mapping from ``ReachabilityStatus`` (``ReachabilityStatus/afNetworkingStatus``):
/// `unknown` → ``unknown``, `notReachable` → ``notReachable``, reachable via `cellular` →
/// ``reachableViaWWAN``, reachable via any other kind (`wired`, `wireless`, `loopback`,
/// `other`) → ``reachableViaWiFi``. That last rule is AFNetworking's own on macOS, where every
/// reachable interface but a cellular one — Ethernet included — is reported as WiFi.
public enum AFNetworkReachabilityStatus: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `AFNetworkReachabilityStatusUnknown`.
    case unknown = -1
    /// `AFNetworkReachabilityStatusNotReachable`.
    case notReachable = 0
    /// `AFNetworkReachabilityStatusReachableViaWWAN`.
    case reachableViaWWAN = 1
    /// `AFNetworkReachabilityStatusReachableViaWiFi`.
    case reachableViaWiFi = 2

    /// AFNetworking's string (`AFStringFromNetworkReachabilityStatus`): `Unknown`,
    /// `Not Reachable`, `Reachable via WWAN`, `Reachable via WiFi`.
    public var localizedDescription: String {
        switch self {
        case .unknown: "Unknown"
        case .notReachable: "Not Reachable"
        case .reachableViaWWAN: "Reachable via WWAN"
        case .reachableViaWiFi: "Reachable via WiFi"
        }
    }

    /// The same as ``localizedDescription``.
    public var description: String { localizedDescription }

    /// AFNetworking's `isReachable`: WWAN or WiFi.
    public var isReachable: Bool { self == .reachableViaWWAN || self == .reachableViaWiFi }
}

extension ReachabilityStatus {
    /// This status as AFNetworking reported it (see ``AFNetworkReachabilityStatus`` for the mapping).
    public var afNetworkingStatus: AFNetworkReachabilityStatus {
        switch self {
        case .unknown: .unknown
        case .notReachable: .notReachable
        case .reachable(.cellular, _): .reachableViaWWAN
        case .reachable: .reachableViaWiFi
        }
    }
}
