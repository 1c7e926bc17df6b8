internal import CNetlink

/// The reachability rule, apart from any I/O so it can be tested with a fake kernel:
///
/// - any network: reachable when some default route (IPv4 or IPv6) sends through a usable
///   interface; the route with the lowest metric wins, IPv4 before IPv6 on a tie.
/// - addresses: reachable when the kernel's route to one of them (RTM_GETROUTE, in the order
///   given) is a unicast or local route whose output interface is usable. The first such
///   address names the interface.
///
/// "Usable" is ``LinkMessage/isUsable``: up (`IFF_UP`), with carrier (`IFF_LOWER_UP`) and not
/// dormant. An interface set down, or one without carrier (a cable pulled, a veth whose peer is
/// down), does not count even while its routes stay.
struct ReachabilityEvaluator: Sendable {
    var classifier: InterfaceClassifier

    func status(of target: ResolvedTarget, kernel: some KernelView) -> ReachabilityStatus {
        do {
            switch target {
            case .anyNetwork: return try anyNetworkStatus(kernel)
            case .addresses(let addresses): return try status(reaching: addresses, kernel)
            }
        } catch {
            return .unknown
        }
    }

    private func anyNetworkStatus(_ kernel: some KernelView) throws(KernelQueryError) -> ReachabilityStatus {
        let links = try kernel.links()
        let routes = try kernel.defaultRoutes().sorted { a, b in
            let (pa, pb) = (a.priority ?? 0, b.priority ?? 0)
            if pa != pb { return pa < pb }
            return a.family == UInt8(AF_INET) && b.family != UInt8(AF_INET)
        }
        for route in routes {
            if let status = reachable(through: route.interfaces, links) { return status }
        }
        return .notReachable
    }

    private func status(reaching addresses: [IPAddress], _ kernel: some KernelView) throws(KernelQueryError) -> ReachabilityStatus {
        guard !addresses.isEmpty else { return .notReachable }
        let links = try kernel.links()
        for address in addresses {
            guard case .route(let route) = try kernel.route(to: address),
                  route.type == UInt8(RTN_UNICAST) || route.type == UInt8(RTN_LOCAL)
            else { continue }
            if let status = reachable(through: route.interfaces, links) { return status }
        }
        return .notReachable
    }

    private func reachable(through interfaces: [Int32], _ links: [Int32: LinkMessage]) -> ReachabilityStatus? {
        for index in interfaces {
            guard let link = links[index], link.isUsable else { continue }
            let name = link.name ?? "if\(index)"
            return .reachable(via: classifier.kind(ofInterface: name, linkType: link.linkType), interface: name)
        }
        return nil
    }
}

/// A target with its host name (if any) resolved.
enum ResolvedTarget: Sendable, Equatable {
    case anyNetwork
    case addresses([IPAddress])
}
