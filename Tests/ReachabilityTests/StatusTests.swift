import Testing
@testable import CourierReachability

/// Checklist H, item 114, and Courier's own status type.
@Suite struct StatusTests {
    @Test func afNetworkingRawValuesAndStrings() {
        #expect(AFNetworkReachabilityStatus.unknown.rawValue == -1)
        #expect(AFNetworkReachabilityStatus.notReachable.rawValue == 0)
        #expect(AFNetworkReachabilityStatus.reachableViaWWAN.rawValue == 1)
        #expect(AFNetworkReachabilityStatus.reachableViaWiFi.rawValue == 2)
        #expect(AFNetworkReachabilityStatus.allCases.map(\.localizedDescription) == [
            "Unknown", "Not Reachable", "Reachable via WWAN", "Reachable via WiFi",
        ])
        #expect(AFNetworkReachabilityStatus.reachableViaWiFi.description == "Reachable via WiFi")
        #expect(AFNetworkReachabilityStatus(rawValue: 1) == .reachableViaWWAN)
        #expect(AFNetworkReachabilityStatus(rawValue: 3) == nil)
        #expect(AFNetworkReachabilityStatus.reachableViaWWAN.isReachable)
        #expect(AFNetworkReachabilityStatus.reachableViaWiFi.isReachable)
        #expect(!AFNetworkReachabilityStatus.unknown.isReachable)
        #expect(!AFNetworkReachabilityStatus.notReachable.isReachable)
    }

    @Test func mappingToAFNetworking() {
        #expect(ReachabilityStatus.unknown.afNetworkingStatus == .unknown)
        #expect(ReachabilityStatus.notReachable.afNetworkingStatus == .notReachable)
        #expect(ReachabilityStatus.reachable(via: .cellular, interface: "wwan0").afNetworkingStatus == .reachableViaWWAN)
        // AFNetworking on macOS reports every non-cellular interface, Ethernet included, as WiFi.
        for kind in [InterfaceKind.wired, .wireless, .loopback, .other] {
            #expect(ReachabilityStatus.reachable(via: kind, interface: "x").afNetworkingStatus == .reachableViaWiFi)
        }
    }

    @Test func descriptionsAndAccessors() {
        let wired = ReachabilityStatus.reachable(via: .wired, interface: "eth0")
        #expect(wired.description == "reachable via wired (eth0)")
        #expect(ReachabilityStatus.notReachable.description == "not reachable")
        #expect(ReachabilityStatus.unknown.description == "unknown")
        #expect(wired.isReachable && wired.interfaceKind == .wired && wired.interfaceName == "eth0")
        #expect(!ReachabilityStatus.notReachable.isReachable && ReachabilityStatus.notReachable.interfaceName == nil)
        #expect(InterfaceKind.allCases.map(\.description) == ["wired", "wireless", "cellular", "loopback", "other"])
    }

    @Test func addresses() throws {
        let v4 = try #require(IPAddress("192.0.2.1"))
        #expect(v4.bytes == [192, 0, 2, 1] && v4.family == .v4 && v4.description == "192.0.2.1")
        let v6 = try #require(IPAddress("2001:db8::1"))
        #expect(v6.bytes.count == 16 && v6.family == .v6 && v6.description == "2001:db8::1")
        #expect(IPAddress("example.com") == nil)
        #expect(IPAddress("300.1.1.1") == nil)
        #expect(IPAddress("") == nil)
        #expect(IPAddress(bytes: [1, 2, 3]) == nil)
        #expect(IPAddress("0.0.0.0")?.isUnspecified == true && IPAddress("::")?.isUnspecified == true)
    }

    @Test func targetsFromText() {
        #expect(ReachabilityTarget(parsing: "") == .anyNetwork)
        #expect(ReachabilityTarget(parsing: "0.0.0.0") == .anyNetwork)
        #expect(ReachabilityTarget(parsing: "::") == .anyNetwork)
        #expect(ReachabilityTarget(parsing: "10.0.0.1") == .address(IPAddress("10.0.0.1")!))
        #expect(ReachabilityTarget(parsing: "::1") == .address(IPAddress("::1")!))
        #expect(ReachabilityTarget(parsing: "example.com") == .host("example.com"))
        #expect(ReachabilityTarget.anyNetwork.description == "any network")
        // AFNetworking's +manager is the zero address: the same as any network.
        #expect(ReachabilityMonitor(target: .address(IPAddress("0.0.0.0")!)).target == .anyNetwork)
    }

    @Test func errorDescriptions() {
        let error = ReachabilityError(.notReachable, target: .host("example.com"), waited: .seconds(5))
        #expect(error.description == "the network stayed unreachable (example.com, waited 5.0 seconds)")
        #expect(ReachabilityError(.netlinkUnavailable, target: .anyNetwork, errno: 13).description.hasSuffix("(any network, errno 13)"))
    }
}
