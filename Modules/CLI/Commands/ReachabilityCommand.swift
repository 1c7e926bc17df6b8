import ArgumentParser

/// `courier reachability [HOST | ADDRESS] [--watch]`: the options. ``ReachabilityRunner`` does
/// the work.
struct ReachabilityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reachability",
        abstract: "Whether the network, a host or an address is reachable, and through which interface.",
        usage: "courier reachability [HOST | ADDRESS] [--watch]",
        discussion: """
            Asks the kernel whether it has a route to the target through an interface that is \
            up and running; nothing is sent. Without a target, the host as a whole: any default \
            route. Prints e.g. "reachable via wired (eth0)" or "not reachable" and exits 0 when \
            reachable, 1 otherwise. With --watch, prints one time-stamped line per change until \
            interrupted (SIGINT or SIGTERM), then exits 0.
            """
    )

    @Argument(help: ArgumentHelp("A host name or an IP address; none means any network.", valueName: "HOST | ADDRESS"))
    var target: String?

    @Flag(help: "Print one time-stamped line per change until interrupted.")
    var watch = false
}
