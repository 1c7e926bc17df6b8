import CourierCore
import CourierTesting
import Foundation
import Glibc
import Testing
@testable import CourierReachability

/// The suites that start real monitors, run one at a time: their thread and descriptor checks
/// must not see another suite's monitors.
@Suite(.serialized) struct LiveReachabilityTests {}

/// Polls `condition` every 5 ms until it holds or `timeout` passes; returns whether it held.
/// Generous: it only matters when the condition never holds. Under a sanitizer five times longer: the whole
/// unit run then keeps the cooperative pool busy for about 40 s (see CoreTests' `eventually`).
func eventually(
    within timeout: Duration = TimeBounds.isSanitized ? .seconds(100) : .seconds(20),
    _ condition: @Sendable () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Records every status a monitor delivers, with when it arrived.
final class StatusRecorder: Sendable {
    private let recorded = Locked<[ReachabilityStatus]>([])
    var statuses: [ReachabilityStatus] { recorded.withLock { $0 } }
    var count: Int { statuses.count }
    func record(_ status: ReachabilityStatus) { recorded.withLock { $0.append(status) } }
}

/// A monitor on a scripted kernel (notifications still come from the real rtnetlink; `refresh()`
/// stands in for a network change).
func fakeMonitor(_ kernel: FakeKernel, target: ReachabilityTarget = .address(IPAddress("198.51.100.7")!), queue: DispatchQueue? = nil) -> ReachabilityMonitor {
    ReachabilityMonitor(target: target, queue: queue, sysfsRoot: "/nonexistent-courier-sysfs") { () throws(KernelQueryError) in kernel }
}

/// Descriptors and threads that belong to monitors: netlink sockets, eventfds and threads named
/// `courier-reach`, each with an identity that survives the number being reused.
enum ProcessResources {
    /// "fd -> target" for every netlink socket and eventfd this process holds.
    static func monitorDescriptors() -> Set<String> {
        let netlinkInodes = Set(((try? String(contentsOfFile: "/proc/self/net/netlink", encoding: .utf8)) ?? "")
            .split(separator: "\n").dropFirst()
            .compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init) })
        var found: Set<String> = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { continue }
            if target == "anon_inode:[eventfd]" {
                found.insert("\(name) -> \(target)")
            } else if target.hasPrefix("socket:["), netlinkInodes.contains(String(target.dropFirst(8).dropLast())) {
                found.insert("\(name) -> \(target)")
            }
        }
        return found
    }

    /// Thread ids of threads named `courier-reach`.
    static func monitorThreads() -> Set<String> {
        var found: Set<String> = []
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? [] {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(tid)/comm", encoding: .utf8)) ?? ""
            if comm.trimmingCharacters(in: .whitespacesAndNewlines) == "courier-reach" { found.insert(tid) }
        }
        return found
    }

    /// True when the kernel's routing tables (read from /proc, as `ip route` would) hold an
    /// IPv4 or IPv6 default route.
    static func hasDefaultRoute() -> Bool {
        let v4 = ((try? String(contentsOfFile: "/proc/net/route", encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
            .contains { $0.split(separator: "\t").dropFirst().first == "00000000" }
        let v6 = ((try? String(contentsOfFile: "/proc/net/ipv6_route", encoding: .utf8)) ?? "").split(separator: "\n")
            .contains { line in
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                return fields.count > 9 && fields[0] == String(repeating: "0", count: 32) && fields[1] == "00" && fields[9] != "lo"
            }
        return v4 || v6
    }
}
