internal import CNetlink

/// An interface, from RTM_NEWLINK (`struct ifinfomsg` and its IFLA_* attributes).
struct LinkMessage: Sendable, Equatable {
    var index: Int32
    /// `ARPHRD_*`.
    var linkType: UInt16
    /// `IFF_*`, as `ip link` shows them.
    var flags: UInt32
    var name: String?
    /// IF_OPER_* (RFC 2863 operational state), when sent.
    var operationalState: UInt8?

    /// `IFF_UP`: administratively up.
    var isUp: Bool { flags & UInt32(IFF_UP) != 0 }
    /// `IFF_RUNNING`: operationally up (RFC 2863 state up or unknown).
    var isRunning: Bool { flags & UInt32(IFF_RUNNING) != 0 }
    /// `IFF_LOWER_UP`: the driver reports carrier (cable in, peer up, associated).
    var hasCarrier: Bool { flags & Self.lowerUp != 0 }
    /// `IFF_DORMANT`: carrier, but waiting for something (802.1X, a Wi-Fi handshake).
    var isDormant: Bool { flags & Self.dormant != 0 }

    /// Can carry traffic: up, with carrier, and not dormant.
    ///
    /// Carrier rather than `IFF_RUNNING`: the kernel derives `IFF_RUNNING` from the operational
    /// state, which its link-watch work updates up to a second after the carrier changes (for
    /// every device whose events it does not deem urgent: physical NICs, and veth pairs split
    /// across namespaces), while `IFF_LOWER_UP` and `IFF_DORMANT` change at once. A link that
    /// comes back is usable (its queue is active) as soon as it is up with carrier.
    var isUsable: Bool { isUp && hasCarrier && !isDormant }

    // IFF_LOWER_UP and IFF_DORMANT (1 << 16, 1 << 17) are defined only by <linux/if.h>, which
    // clashes with glibc's <net/if.h>.
    static let lowerUp: UInt32 = 1 << 16
    static let dormant: UInt32 = 1 << 17

    init(index: Int32, linkType: UInt16, flags: UInt32, name: String?, operationalState: UInt8? = nil) {
        self.index = index
        self.linkType = linkType
        self.flags = flags
        self.name = name
        self.operationalState = operationalState
    }

    init(_ payload: [UInt8]) throws(NetlinkParseError) {
        let size = MemoryLayout<ifinfomsg>.size
        guard payload.count >= size else { throw NetlinkParseError(offset: 0, detail: "short ifinfomsg") }
        let header = payload.withUnsafeBytes { $0.loadUnaligned(as: ifinfomsg.self) }
        let attributes = try NetlinkAttributes(payload, from: Int(cnl_nlmsg_align(UInt32(size))))
        self.init(
            index: header.ifi_index,
            linkType: header.ifi_type,
            flags: header.ifi_flags,
            name: attributes.string(IFLA_IFNAME),
            operationalState: attributes.uint8(IFLA_OPERSTATE)
        )
    }
}

/// An interface address, from RTM_NEWADDR (`struct ifaddrmsg` and its IFA_* attributes).
struct AddressMessage: Sendable, Equatable {
    var family: UInt8
    var prefixLength: UInt8
    var interfaceIndex: UInt32
    /// IFA_LOCAL when present (the interface's own address on point-to-point links), else IFA_ADDRESS.
    var address: IPAddress?
    var label: String?

    init(_ payload: [UInt8]) throws(NetlinkParseError) {
        let size = MemoryLayout<ifaddrmsg>.size
        guard payload.count >= size else { throw NetlinkParseError(offset: 0, detail: "short ifaddrmsg") }
        let header = payload.withUnsafeBytes { $0.loadUnaligned(as: ifaddrmsg.self) }
        let attributes = try NetlinkAttributes(payload, from: Int(cnl_nlmsg_align(UInt32(size))))
        family = header.ifa_family
        prefixLength = header.ifa_prefixlen
        interfaceIndex = header.ifa_index
        address = attributes.address(IFA_LOCAL) ?? attributes.address(IFA_ADDRESS)
        label = attributes.string(IFA_LABEL)
    }
}

/// A route, from RTM_NEWROUTE (`struct rtmsg` and its RTA_* attributes): a dump entry or the
/// kernel's answer to RTM_GETROUTE for one destination.
struct RouteMessage: Sendable, Equatable {
    var family: UInt8
    var destinationLength: UInt8
    /// RTA_TABLE when present (tables above 255), else `rtm_table`.
    var table: UInt32
    /// `RTN_*`: unicast, local, unreachable, blackhole...
    var type: UInt8
    var destination: IPAddress?
    var gateway: IPAddress?
    /// RTA_OIF: the output interface.
    var outputInterface: Int32?
    /// RTA_PRIORITY: the metric.
    var priority: UInt32?
    /// The interfaces of an RTA_MULTIPATH route's next hops, in order.
    var nextHopInterfaces: [Int32]

    init(family: UInt8, destinationLength: UInt8, table: UInt32, type: UInt8, destination: IPAddress? = nil,
         gateway: IPAddress? = nil, outputInterface: Int32?, priority: UInt32? = nil, nextHopInterfaces: [Int32] = []) {
        self.family = family
        self.destinationLength = destinationLength
        self.table = table
        self.type = type
        self.destination = destination
        self.gateway = gateway
        self.outputInterface = outputInterface
        self.priority = priority
        self.nextHopInterfaces = nextHopInterfaces
    }

    init(_ payload: [UInt8]) throws(NetlinkParseError) {
        let size = MemoryLayout<rtmsg>.size
        guard payload.count >= size else { throw NetlinkParseError(offset: 0, detail: "short rtmsg") }
        let header = payload.withUnsafeBytes { $0.loadUnaligned(as: rtmsg.self) }
        let attributes = try NetlinkAttributes(payload, from: Int(cnl_nlmsg_align(UInt32(size))))
        self.init(
            family: header.rtm_family,
            destinationLength: header.rtm_dst_len,
            table: attributes.uint32(RTA_TABLE.rawValue) ?? UInt32(header.rtm_table),
            type: header.rtm_type,
            destination: attributes.address(RTA_DST.rawValue),
            gateway: attributes.address(RTA_GATEWAY.rawValue),
            outputInterface: attributes.uint32(RTA_OIF.rawValue).map { Int32(bitPattern: $0) },
            priority: attributes.uint32(RTA_PRIORITY.rawValue),
            nextHopInterfaces: attributes[RTA_MULTIPATH.rawValue].map(Self.nextHops) ?? []
        )
    }

    /// The interface of each `struct rtnexthop` in an RTA_MULTIPATH value.
    private static func nextHops(_ bytes: [UInt8]) -> [Int32] {
        var interfaces: [Int32] = []
        var offset = 0
        let size = MemoryLayout<rtnexthop>.size
        while bytes.count - offset >= size {
            let hop = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: rtnexthop.self) }
            guard Int(hop.rtnh_len) >= size else { break }
            interfaces.append(hop.rtnh_ifindex)
            offset += Int(cnl_rtnh_align(UInt32(hop.rtnh_len)))
        }
        return interfaces
    }

    /// A default route: no destination prefix, ordinary unicast, outside the local table.
    var isDefault: Bool {
        destinationLength == 0 && type == UInt8(RTN_UNICAST) && table != UInt32(RT_TABLE_LOCAL.rawValue)
    }

    /// The interfaces this route sends through: RTA_OIF, or the multipath next hops.
    var interfaces: [Int32] {
        if let outputInterface { return [outputInterface] + nextHopInterfaces }
        return nextHopInterfaces
    }
}
