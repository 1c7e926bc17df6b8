import Foundation
import Testing
import CourierTesting

/// The monitor against a real kernel in network namespaces: `courier reachability --watch` runs
/// inside a namespace (`ip netns exec`) while the test changes links, routes and addresses there.
@Suite(.serialized, .enabled(if: NetworkLab.availability.allowed, Comment(rawValue: NetworkLab.availability.reason)))
struct MonitorNamespaceTests {
    /// A namespace with lo up and a veth pair c0 (10.231.<subnet>.1/24) ↔ p0, both inside it,
    /// both up, and a default route via 10.231.<subnet>.2.
    func wiredNamespace(_ lab: NetworkLab, subnet: Int, defaultRoute: Bool = true, address: Bool = true) throws -> String {
        let ns = try lab.namespace("wired")
        try lab.ip("-n", ns, "link", "add", "c0", "type", "veth", "peer", "name", "p0")
        if address { try lab.ip("-n", ns, "addr", "add", "10.231.\(subnet).1/24", "dev", "c0") }
        try lab.ip("-n", ns, "link", "set", "p0", "up")
        try lab.ip("-n", ns, "link", "set", "c0", "up")
        if defaultRoute { try lab.ip("-n", ns, "route", "add", "default", "via", "10.231.\(subnet).2", "dev", "c0") }
        return ns
    }

    func watch(_ ns: String, _ target: String?) throws -> LineProcess {
        try LineProcess(namespace: ns, Binaries.courier, ["reachability"] + (target.map { [$0] } ?? []) + ["--watch"])
    }

    @Test func linkDownIsSeenWithin200msAndLinkUpRestoresReachability() async throws {
        let lab = NetworkLab()
        defer { lab.cleanUp() }
        let ns = try wiredNamespace(lab, subnet: 1)
        let network = try watch(ns, nil), neighbour = try watch(ns, "10.231.1.2")
        defer { network.terminate(); neighbour.terminate() }
        #expect(try await network.status(after: 0).text == "reachable via wired (c0)")
        #expect(try await neighbour.status(after: 0).text == "reachable via wired (c0)")

        // Set the interface down.
        var started = ContinuousClock.now
        try lab.ip("-n", ns, "link", "set", "c0", "down")
        for watcher in [network, neighbour] {
            let line = try await watcher.status(after: 1)
            #expect(line.text == "not reachable")
            let elapsed = line.time - started
            #expect(elapsed < TimeBounds.prompt, "link down seen after \(elapsed)")
            print("link down → not reachable after \(elapsed)")
        }

        // Up again: the connected route comes back by itself, the default route does not.
        started = ContinuousClock.now
        try lab.ip("-n", ns, "link", "set", "c0", "up")
        let back = try await neighbour.status(after: 2)
        #expect(back.text == "reachable via wired (c0)")
        print("link up → reachable after \(back.time - started)")
        try lab.ip("-n", ns, "route", "add", "default", "via", "10.231.1.2", "dev", "c0")
        #expect(try await network.status(after: 2).text == "reachable via wired (c0)")

        // Carrier lost: the peer goes down, c0 stays administratively up but not running.
        started = ContinuousClock.now
        try lab.ip("-n", ns, "link", "set", "p0", "down")
        let lost = try await neighbour.status(after: 3)
        #expect(lost.text == "not reachable")
        #expect(lost.time - started < TimeBounds.prompt, "carrier loss seen after \(lost.time - started)")
        #expect(try await network.status(after: 3).text == "not reachable")
        try lab.ip("-n", ns, "link", "set", "p0", "up")
        #expect(try await neighbour.status(after: 4).text == "reachable via wired (c0)")

        #expect(network.terminate() == 0)
        #expect(neighbour.terminate() == 0)
    }

    @Test func removingTheDefaultRouteLeavesDirectlyConnectedAddressesReachable() async throws {
        let lab = NetworkLab()
        defer { lab.cleanUp() }
        let ns = try wiredNamespace(lab, subnet: 2)
        let network = try watch(ns, nil), neighbour = try watch(ns, "10.231.2.2"), far = try watch(ns, "198.51.100.7")
        defer { network.terminate(); neighbour.terminate(); far.terminate() }
        for watcher in [network, neighbour, far] {
            #expect(try await watcher.status(after: 0).text == "reachable via wired (c0)")
        }
        let started = ContinuousClock.now
        try lab.ip("-n", ns, "route", "del", "default")
        for watcher in [network, far] {
            let line = try await watcher.status(after: 1)
            #expect(line.text == "not reachable")
            #expect(line.time - started < TimeBounds.prompt)
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(neighbour.count == 1, "the directly connected address changed: \(neighbour.allLines.map(\.text))")
    }

    @Test func anAddedAddressMakesItsSubnetReachable() async throws {
        let lab = NetworkLab()
        defer { lab.cleanUp() }
        let ns = try wiredNamespace(lab, subnet: 3, defaultRoute: false, address: false)
        // A host name from the namespace's own /etc/hosts, resolved again when the network changes.
        try lab.etc(ns, ["hosts": "127.0.0.1 localhost\n10.231.3.2 gateway.courier.test\n", "resolv.conf": "nameserver 127.0.0.1\n"])
        let address = try watch(ns, "10.231.3.9"), name = try watch(ns, "gateway.courier.test")
        defer { address.terminate(); name.terminate() }
        #expect(try await address.status(after: 0).text == "not reachable")
        #expect(try await name.status(after: 0).text == "not reachable")
        let started = ContinuousClock.now
        try lab.ip("-n", ns, "addr", "add", "10.231.3.1/24", "dev", "c0")
        for watcher in [address, name] {
            let line = try await watcher.status(after: 1)
            #expect(line.text == "reachable via wired (c0)")
            #expect(line.time - started < TimeBounds.prompt)
        }
        try lab.ip("-n", ns, "addr", "del", "10.231.3.1/24", "dev", "c0")
        #expect(try await address.status(after: 2).text == "not reachable")
        #expect(try await name.status(after: 2).text == "not reachable")
    }

    @Test func aLoopbackOnlyNamespaceReachesOnlyItself() async throws {
        let lab = NetworkLab()
        defer { lab.cleanUp() }
        let ns = try lab.namespace("lo")
        try lab.etc(ns, ["hosts": "127.0.0.1 localhost\n::1 localhost\n", "resolv.conf": "nameserver 127.0.0.1\n"])
        for (target, expected, status) in [
            ("localhost", "reachable via loopback (lo)", Int32(0)),
            ("127.0.0.1", "reachable via loopback (lo)", 0),
            ("::1", "reachable via loopback (lo)", 0),
            ("", "not reachable", 1),
            ("10.1.2.3", "not reachable", 1),
            ("2001:db8::1", "not reachable", 1),
        ] {
            let arguments = ["netns", "exec", ns, Binaries.courier, "reachability"] + (target.isEmpty ? [] : [target])
            let result = Command.run("/usr/sbin/ip", arguments)
            #expect(result.output == expected + "\n", "courier reachability \(target)")
            #expect(result.status == status, "courier reachability \(target)")
        }
        // With lo down, not even the host itself can be reached.
        try lab.ip("-n", ns, "link", "set", "lo", "down")
        let result = Command.run("/usr/sbin/ip", ["netns", "exec", ns, Binaries.courier, "reachability", "127.0.0.1"])
        #expect(result.output == "not reachable\n")
    }

    @Test func watchEndsCleanlyOnSIGINT() async throws {
        let lab = NetworkLab()
        defer { lab.cleanUp() }
        let ns = try lab.namespace("sigint")
        let watcher = try watch(ns, "127.0.0.1")
        #expect(try await watcher.status(after: 0).text == "reachable via loopback (lo)")
        let pid = watcher.processIdentifier
        kill(pid, SIGINT)
        #expect(watcher.waitForExit() == 0)
    }
}
