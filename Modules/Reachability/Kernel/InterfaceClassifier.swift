internal import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Decides an interface's ``InterfaceKind`` from its link type and what sysfs says about it.
///
/// In order: `ARPHRD_LOOPBACK` → loopback; `DEVTYPE=wwan` in `uevent`, or a raw-IP link
/// (`ARPHRD_RAWIP`, how qmi_wwan and MBIM modems appear) → cellular; a `wireless` or `phy80211`
/// entry, or `DEVTYPE=wlan` → wireless; any other Ethernet-type link (`ARPHRD_ETHER`: NICs,
/// veth, bridges, VLANs, bonds) → wired; everything else (PPP, tunnels, TUN, WireGuard) → other.
struct InterfaceClassifier: Sendable {
    /// The directory holding one entry per interface; a test points it at a fake tree.
    var sysfsRoot: String

    init(sysfsRoot: String = "/sys/class/net") {
        self.sysfsRoot = sysfsRoot
    }

    func kind(ofInterface name: String, linkType: UInt16) -> InterfaceKind {
        if Int32(linkType) == ARPHRD_LOOPBACK { return .loopback }
        // Interface names never hold a slash and are never dot entries; refuse to build a
        // path from one that does.
        let safe = !name.isEmpty && !name.contains("/") && name != "." && name != ".."
        let directory = sysfsRoot + "/" + name
        let deviceType = safe ? Self.deviceType(inUevent: directory + "/uevent") : nil
        if deviceType == "wwan" || Int32(linkType) == ARPHRD_RAWIP { return .cellular }
        if deviceType == "wlan" { return .wireless }
        if safe, Self.exists(directory + "/wireless") || Self.exists(directory + "/phy80211") { return .wireless }
        if Int32(linkType) == ARPHRD_ETHER { return .wired }
        return .other
    }

    /// The `DEVTYPE=` value of a `uevent` file, if it has one.
    static func deviceType(inUevent path: String) -> String? {
        guard let text = readSmallFile(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("DEVTYPE=") {
            return String(line.dropFirst("DEVTYPE=".count))
        }
        return nil
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }

    /// Up to 4 KiB of a sysfs file as text.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }
}
