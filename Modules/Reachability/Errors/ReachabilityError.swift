/// A reachability failure: the monitor could not watch the kernel, or a request gave up
/// waiting for the network.
///
/// A struct with a reason rather than an enum, so new reasons never break a `switch`.
public struct ReachabilityError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// The rtnetlink socket could not be opened or bound (``ReachabilityError/errno`` says why).
        public static let netlinkUnavailable = Reason(name: "the kernel's rtnetlink socket could not be opened")
        /// The monitor's thread could not be started.
        public static let threadUnavailable = Reason(name: "the monitor's thread could not be started")
        /// ``ReachabilityInterceptor`` waited its maximum time and the target stayed unreachable.
        public static let notReachable = Reason(name: "the network stayed unreachable")

        /// The reason's text.
        public var description: String { name }
    }

    /// What went wrong.
    public var reason: Reason
    /// The monitor's target.
    public var target: ReachabilityTarget
    /// How long a request waited before giving up, for ``Reason/notReachable``.
    public var waited: Duration?
    /// The system's error number, when a system call failed.
    public var errno: Int32?

    /// An error.
    public init(_ reason: Reason, target: ReachabilityTarget, waited: Duration? = nil, errno: Int32? = nil) {
        self.reason = reason
        self.target = target
        self.waited = waited
        self.errno = errno
    }

    /// e.g. `the network stayed unreachable (example.com, waited 5 seconds)`.
    public var description: String {
        var details = [target.description]
        if let waited { details.append("waited \(waited)") }
        if let errno { details.append("errno \(errno)") }
        return "\(reason) (\(details.joined(separator: ", ")))"
    }
}
