/// What the reachability decision needs from the kernel. ``RouteNetlinkQuery`` asks the real
/// one over rtnetlink; tests give a fake.
protocol KernelView {
    /// Every interface, by index.
    func links() throws(KernelQueryError) -> [Int32: LinkMessage]
    /// The default routes of every family (``RouteMessage/isDefault``).
    func defaultRoutes() throws(KernelQueryError) -> [RouteMessage]
    /// The route the kernel would use to send to `address` (RTM_GETROUTE), or why it has none.
    func route(to address: IPAddress) throws(KernelQueryError) -> RouteLookup
}

/// The kernel's answer to "how would you send to this address?".
enum RouteLookup: Sendable, Equatable {
    /// This route.
    case route(RouteMessage)
    /// No route: the errno the kernel answered with (ENETUNREACH, EHOSTUNREACH, EACCES...).
    case none(errno: Int32)
}

/// Asking the kernel failed (the socket broke, or it did not answer in time).
struct KernelQueryError: Error, Sendable, Equatable, CustomStringConvertible {
    var operation: String
    var errno: Int32?
    var detail: String?

    var description: String {
        var text = "rtnetlink \(operation) failed"
        if let errno { text += ": errno \(errno)" }
        if let detail { text += ": \(detail)" }
        return text
    }
}
