import Foundation
import Testing
@testable import CourierReachability

/// Interface kinds from a fake /sys/class/net tree.
@Suite struct InterfaceClassifierTests {
    private static func makeTree() throws -> String {
        let root = FileManager.default.temporaryDirectory.appending(path: "courier-sysfs-\(UUID().uuidString)").path
        func add(_ name: String, uevent: String? = nil, directories: [String] = []) throws {
            let directory = root + "/" + name
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for sub in directories {
                try FileManager.default.createDirectory(atPath: directory + "/" + sub, withIntermediateDirectories: true)
            }
            if let uevent { try uevent.write(toFile: directory + "/uevent", atomically: true, encoding: .utf8) }
        }
        try add("lo", uevent: "INTERFACE=lo\nIFINDEX=1\n")
        try add("eth0", uevent: "INTERFACE=eth0\nIFINDEX=2\n")
        try add("veth0", uevent: "INTERFACE=veth0\nIFINDEX=3\n")
        try add("wlan0", uevent: "DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=4\n")
        try add("wlp2s0", uevent: "INTERFACE=wlp2s0\nIFINDEX=5\n", directories: ["wireless"])
        try add("wlx1", directories: ["phy80211"])
        try add("wwan0", uevent: "DEVTYPE=wwan\nINTERFACE=wwan0\nIFINDEX=6\n")
        try add("rmnet0", uevent: "INTERFACE=rmnet0\n")
        try add("br0", uevent: "DEVTYPE=bridge\nINTERFACE=br0\n")
        try add("wg0", uevent: "DEVTYPE=wireguard\nINTERFACE=wg0\n")
        try add("ppp0", uevent: "INTERFACE=ppp0\n")
        return root
    }

    @Test func kinds() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let classifier = InterfaceClassifier(sysfsRoot: root)
        let ether: UInt16 = 1, loopback: UInt16 = 772, none: UInt16 = 65534, ppp: UInt16 = 512, rawIP: UInt16 = 519
        #expect(classifier.kind(ofInterface: "lo", linkType: loopback) == .loopback)
        #expect(classifier.kind(ofInterface: "eth0", linkType: ether) == .wired)
        #expect(classifier.kind(ofInterface: "veth0", linkType: ether) == .wired)
        #expect(classifier.kind(ofInterface: "br0", linkType: ether) == .wired)
        #expect(classifier.kind(ofInterface: "wlan0", linkType: ether) == .wireless)
        #expect(classifier.kind(ofInterface: "wlp2s0", linkType: ether) == .wireless)
        #expect(classifier.kind(ofInterface: "wlx1", linkType: ether) == .wireless)
        #expect(classifier.kind(ofInterface: "wwan0", linkType: none) == .cellular)
        #expect(classifier.kind(ofInterface: "rmnet0", linkType: rawIP) == .cellular)
        #expect(classifier.kind(ofInterface: "wg0", linkType: none) == .other)
        #expect(classifier.kind(ofInterface: "ppp0", linkType: ppp) == .other)
        // An interface sysfs does not know (another namespace's, or gone) falls back on the link type.
        #expect(classifier.kind(ofInterface: "gone0", linkType: ether) == .wired)
        #expect(classifier.kind(ofInterface: "gone1", linkType: none) == .other)
        // Names are never turned into paths outside the tree.
        #expect(classifier.kind(ofInterface: "../wlan0", linkType: ether) == .wired)
        #expect(classifier.kind(ofInterface: "..", linkType: ether) == .wired)
    }

    @Test func deviceTypeParsing() throws {
        let root = try Self.makeTree()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(InterfaceClassifier.deviceType(inUevent: root + "/wwan0/uevent") == "wwan")
        #expect(InterfaceClassifier.deviceType(inUevent: root + "/eth0/uevent") == nil)
        #expect(InterfaceClassifier.deviceType(inUevent: root + "/missing/uevent") == nil)
    }

    @Test func realLoopbackIsLoopback() {
        #expect(InterfaceClassifier().kind(ofInterface: "lo", linkType: 772) == .loopback)
    }
}
