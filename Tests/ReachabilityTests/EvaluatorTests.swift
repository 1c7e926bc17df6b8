import Glibc
import Testing
@testable import CourierReachability

/// The reachability rule against a scripted kernel.
@Suite struct EvaluatorTests {
    let evaluator = ReachabilityEvaluator(classifier: InterfaceClassifier(sysfsRoot: "/nonexistent-courier-sysfs"))
    let wired = ReachabilityStatus.reachable(via: .wired, interface: "eth0")

    @Test func anyNetworkNeedsAUsableDefaultRoute() {
        let kernel = FakeKernel()
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .notReachable)
        kernel.set { $0.defaultRoutes = [FakeKernel.route(via: 2)] }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == wired)
        kernel.set { $0.links[2]?.flags = 0 }  // set down
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .notReachable)
        kernel.set { $0.links[2]?.flags = FakeKernel.noCarrier }  // up, no carrier
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .notReachable)
        kernel.set { $0.links[2]?.flags = FakeKernel.dormant }  // carrier, waiting for authentication
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .notReachable)
        // Carrier back but the operational state not updated yet (IFF_RUNNING lags): usable.
        kernel.set { $0.links[2]?.flags = 0x1 | 0x10000 }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == wired)
        kernel.set { $0.links[2] = nil }  // gone
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .notReachable)
    }

    @Test func lowestMetricUsableDefaultRouteWins() {
        let wlan = LinkMessage(index: 3, linkType: 1, flags: FakeKernel.up, name: "wlan0")
        let kernel = FakeKernel(links: [FakeKernel.lo, FakeKernel.eth0, wlan])
        kernel.set { $0.defaultRoutes = [FakeKernel.route(via: 3, metric: 600), FakeKernel.route(via: 2, metric: 100)] }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == wired)
        kernel.set { $0.links[2]?.flags = 0 }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .reachable(via: .wired, interface: "wlan0"))
        // IPv4 before IPv6 on equal metrics.
        kernel.set {
            $0.links[2]?.flags = FakeKernel.up
            $0.defaultRoutes = [FakeKernel.route(via: 3, family: 10), FakeKernel.route(via: 2, family: 2)]
        }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == wired)
    }

    @Test func multipathDefaultRoute() {
        let kernel = FakeKernel()
        kernel.set {
            $0.defaultRoutes = [RouteMessage(family: 2, destinationLength: 0, table: 254, type: 1, outputInterface: nil, nextHopInterfaces: [9, 2])]
        }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == wired)
    }

    @Test func addressesNeedAUsableRoute() throws {
        let kernel = FakeKernel()
        let far = try #require(IPAddress("198.51.100.7")), loopback = try #require(IPAddress("127.0.0.1"))
        #expect(evaluator.status(of: .addresses([far]), kernel: kernel) == .notReachable)
        #expect(evaluator.status(of: .addresses([]), kernel: kernel) == .notReachable)
        kernel.set {
            $0.lookups[loopback] = .route(RouteMessage(family: 2, destinationLength: 32, table: 254, type: 2, outputInterface: 1))
        }
        // The first address with a usable route names the interface.
        #expect(evaluator.status(of: .addresses([far, loopback]), kernel: kernel) == .reachable(via: .loopback, interface: "lo"))
        kernel.set { $0.lookups[far] = .route(FakeKernel.route(via: 2)) }
        #expect(evaluator.status(of: .addresses([far, loopback]), kernel: kernel) == wired)
        kernel.set { $0.links[2]?.flags = FakeKernel.noCarrier }
        #expect(evaluator.status(of: .addresses([far]), kernel: kernel) == .notReachable)
    }

    @Test func routesThatDoNotDeliverDoNotCount() throws {
        let kernel = FakeKernel()
        let address = try #require(IPAddress("203.0.113.9"))
        for type: UInt8 in [5, 6, 7, 8] {  // RTN_MULTICAST, RTN_BLACKHOLE, RTN_UNREACHABLE, RTN_PROHIBIT
            kernel.set { $0.lookups[address] = .route(FakeKernel.route(via: 2, type: type)) }
            #expect(evaluator.status(of: .addresses([address]), kernel: kernel) == .notReachable)
        }
        kernel.set { $0.lookups[address] = .none(errno: EHOSTUNREACH) }
        #expect(evaluator.status(of: .addresses([address]), kernel: kernel) == .notReachable)
    }

    @Test func aKernelThatCannotBeAskedGivesUnknown() {
        let kernel = FakeKernel()
        kernel.set { $0.failing = true }
        #expect(evaluator.status(of: .anyNetwork, kernel: kernel) == .unknown)
        #expect(evaluator.status(of: .addresses([IPAddress("127.0.0.1")!]), kernel: kernel) == .unknown)
    }
}
