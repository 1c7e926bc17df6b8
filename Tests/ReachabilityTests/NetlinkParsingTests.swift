import Glibc
import Testing
@testable import CourierReachability

/// The rtnetlink parser against messages captured from a real kernel (NetlinkFixtures.swift).
@Suite struct NetlinkParsingTests {
    private func decodeAll(_ bytes: [UInt8]) throws -> [RouteNetlinkMessage] {
        try NetlinkMessage.split(bytes).map { try $0.decoded() }
    }

    @Test func loopbackLink() throws {
        let messages = try NetlinkMessage.split(NetlinkFixtures.loopbackLink)
        #expect(messages.count == 1)
        #expect(messages[0].type == 16)  // RTM_NEWLINK
        guard case .link(let link, let deleted) = try messages[0].decoded() else {
            Issue.record("not a link")
            return
        }
        #expect(!deleted)
        #expect(link.index == 1 && link.name == "lo" && link.linkType == 772)  // ARPHRD_LOOPBACK
        #expect(link.isUp && link.isRunning && link.hasCarrier && !link.isDormant && link.isUsable)
    }

    @Test func linkSetDown() throws {
        guard case .link(let link, false) = try decodeAll(NetlinkFixtures.vethDownEvent).first else {
            Issue.record("not a link")
            return
        }
        #expect(link.index == 3 && link.name == "veth0" && link.linkType == 1)  // ARPHRD_ETHER
        #expect(!link.isUp && !link.isUsable)
        #expect(link.operationalState == 2)  // IF_OPER_DOWN
    }

    @Test func addressDump() throws {
        let messages = try decodeAll(NetlinkFixtures.addressDump)
        #expect(messages.count == 3)
        #expect(messages.last == .done)
        let addresses = messages.compactMap { message -> AddressMessage? in
            if case .address(let address, false) = message { return address }
            return nil
        }
        #expect(addresses.map { "\($0.address!)/\($0.prefixLength)@\($0.interfaceIndex)" } == ["127.0.0.1/8@1", "10.77.0.1/24@3"])
        #expect(addresses.map(\.label) == ["lo", "veth0"])
    }

    @Test func routeDump() throws {
        let messages = try decodeAll(NetlinkFixtures.routeDump)
        #expect(messages.last == .done)
        let routes = messages.compactMap { message -> RouteMessage? in
            if case .route(let route, false) = message { return route }
            return nil
        }
        #expect(routes.count == 7)
        let defaults = routes.filter(\.isDefault)
        #expect(defaults.count == 1)
        #expect(defaults.first?.gateway == IPAddress("10.77.0.2"))
        #expect(defaults.first?.outputInterface == 3 && defaults.first?.interfaces == [3])
        #expect(defaults.first?.table == 254)  // RT_TABLE_MAIN
        let connected = routes.first { $0.destinationLength == 24 }
        #expect(connected?.destination == IPAddress("10.77.0.0") && connected?.gateway == nil)
        // Local-table entries (the host's own addresses, broadcasts) are never default routes.
        #expect(routes.filter { $0.table == 255 }.count == 5)
    }

    @Test func routeLookups() throws {
        guard case .route(let local, _) = try decodeAll(NetlinkFixtures.routeToLoopback).first,
              case .route(let neighbour, _) = try decodeAll(NetlinkFixtures.routeToNeighbour).first,
              case .route(let viaGateway, _) = try decodeAll(NetlinkFixtures.routeViaGateway).first
        else {
            Issue.record("not routes")
            return
        }
        #expect(local.type == 2 && local.outputInterface == 1 && local.destination == IPAddress("127.0.0.1"))  // RTN_LOCAL via lo
        #expect(neighbour.type == 1 && neighbour.outputInterface == 3 && neighbour.gateway == nil)  // RTN_UNICAST
        #expect(viaGateway.type == 1 && viaGateway.outputInterface == 3 && viaGateway.gateway == IPAddress("10.77.0.2"))
        #expect(viaGateway.destination == IPAddress("198.51.100.7") && viaGateway.destinationLength == 32)
    }

    @Test func noRouteIsAnError() throws {
        #expect(try decodeAll(NetlinkFixtures.noRouteError) == [.error(errno: ENETUNREACH)])
        #expect(try decodeAll(NetlinkFixtures.noRoute6Error) == [.error(errno: ENETUNREACH)])
    }

    /// Found by the netlink fuzz target (Tests/Fuzz/Corpus/netlink/regression-nlmsg-error-int32-min): negating
    /// an NLMSG_ERROR code of INT32_MIN trapped; any code must decode.
    @Test func everyErrorCodeDecodes() throws {
        for code: UInt32 in [0x8000_0000, 0x7FFF_FFFF, 0xFFFF_FFFF, 0] {
            let payload = withUnsafeBytes(of: code.littleEndian) { Array($0) } + [UInt8](repeating: 0, count: 16)
            let message = NetlinkMessage(type: 2, flags: 0, sequence: 1, portID: 0, payload: payload)
            #expect(try message.decoded() == .error(errno: 0 &- Int32(bitPattern: code)))
        }
    }

    @Test func ipv6RouteDeletion() throws {
        guard case .route(let route, let deleted) = try decodeAll(NetlinkFixtures.ipv6RouteDeleted).first else {
            Issue.record("not a route")
            return
        }
        #expect(deleted && route.family == 10 && route.destinationLength == 64)  // AF_INET6, fe80::/64
        #expect(route.destination == IPAddress("fe80::") && route.outputInterface == 3)
    }

    @Test func malformedInput() throws {
        var truncated = NetlinkFixtures.routeToNeighbour
        truncated.removeLast(10)
        #expect(throws: NetlinkParseError.self) { try NetlinkMessage.split(truncated) }
        // A length shorter than the header itself would loop forever if it were believed.
        var tooShort = NetlinkFixtures.routeToNeighbour
        tooShort[0] = 4; tooShort[1] = 0; tooShort[2] = 0; tooShort[3] = 0
        #expect(throws: NetlinkParseError.self) { try NetlinkMessage.split(tooShort) }
        // An attribute running past its message.
        var badAttribute = NetlinkFixtures.routeToNeighbour
        badAttribute[16 + 12] = 0xFF
        #expect(throws: NetlinkParseError.self) { try NetlinkMessage.split(badAttribute).map { try $0.decoded() } }
        // A header cut short of its fixed part.
        #expect(throws: NetlinkParseError.self) { try RouteMessage([1, 2, 3]) }
        #expect(throws: NetlinkParseError.self) { try LinkMessage([1, 2, 3]) }
        #expect(throws: NetlinkParseError.self) { try AddressMessage([]) }
        // Fewer bytes than a header: nothing to read, no error.
        #expect(try NetlinkMessage.split([1, 2, 3]).isEmpty)
    }

    @Test func multipathNextHops() throws {
        // rtmsg (12 bytes) + RTA_MULTIPATH holding two rtnexthop entries (8 bytes each) on interfaces 4 and 7.
        var payload: [UInt8] = [2, 0, 0, 0, 254, 4, 0, 1, 0, 0, 0, 0]
        payload += [20, 0, 9, 0]                          // rta_len 20, RTA_MULTIPATH
        payload += [8, 0, 0, 0, 4, 0, 0, 0]               // rtnh_len 8, flags, hops, ifindex 4
        payload += [8, 0, 0, 0, 7, 0, 0, 0]               // ifindex 7
        let route = try RouteMessage(payload)
        #expect(route.isDefault && route.outputInterface == nil && route.interfaces == [4, 7])
    }
}
