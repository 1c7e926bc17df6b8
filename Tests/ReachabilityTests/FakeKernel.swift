import CourierCore
import Glibc
@testable import CourierReachability

/// A kernel view a test scripts: links, default routes and per-address lookups, changeable
/// from any thread while a monitor reads it.
final class FakeKernel: KernelView, Sendable {
    struct State: Sendable {
        var links: [Int32: LinkMessage] = [:]
        var defaultRoutes: [RouteMessage] = []
        var lookups: [IPAddress: RouteLookup] = [:]
        var failing = false
    }

    let state = Locked(State())

    static let up: UInt32 = 0x1 | 0x40 | 0x10000   // IFF_UP | IFF_RUNNING | IFF_LOWER_UP
    static let noCarrier: UInt32 = 0x1             // IFF_UP alone
    static let dormant: UInt32 = 0x1 | 0x10000 | 0x20000  // IFF_UP | IFF_LOWER_UP | IFF_DORMANT
    static let lo = LinkMessage(index: 1, linkType: 772, flags: up | 0x8, name: "lo")
    static let eth0 = LinkMessage(index: 2, linkType: 1, flags: up, name: "eth0")

    init(links: [LinkMessage] = [lo, eth0]) {
        state.withLock { $0.links = Dictionary(uniqueKeysWithValues: links.map { ($0.index, $0) }) }
    }

    func links() throws(KernelQueryError) -> [Int32: LinkMessage] {
        let state = self.state.withLock { $0 }
        if state.failing { throw KernelQueryError(operation: "dump", errno: EIO) }
        return state.links
    }

    func defaultRoutes() throws(KernelQueryError) -> [RouteMessage] {
        state.withLock { $0.defaultRoutes }
    }

    func route(to address: IPAddress) throws(KernelQueryError) -> RouteLookup {
        state.withLock { $0.lookups[address] } ?? .none(errno: ENETUNREACH)
    }

    /// A unicast route through interface `index`.
    static func route(via index: Int32, family: UInt8 = 2, metric: UInt32? = nil, type: UInt8 = 1) -> RouteMessage {
        RouteMessage(family: family, destinationLength: 0, table: 254, type: type, outputInterface: index, priority: metric)
    }

    func set(_ body: (inout State) -> Void) { state.withLock(body) }
}
