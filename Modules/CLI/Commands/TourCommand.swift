import ArgumentParser

/// `courier tour --server URL [--tls-server URL --ca FILE] [--sse-server URL]`: the guided tour's options.
/// ``TourRunner`` does the work.
struct TourCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tour",
        abstract: "A guided tour of Courier against an httpbin, narrated step by step.",
        usage: "courier tour --server URL [--tls-server URL --ca FILE] [--sse-server URL]",
        discussion: """
            Each step prints a heading, what it does and a check mark, or the
            error. The exit status is 0 only when every step worked.
            """
    )

    @Option(help: ArgumentHelp("The httpbin to run against, e.g. http://127.0.0.1:18080.", valueName: "URL"))
    var server: String

    @Option(name: .customLong("tls-server"), help: ArgumentHelp("An HTTPS server that proxies the same httpbin.", valueName: "URL"))
    var tlsServer: String?

    @Option(help: ArgumentHelp("The PEM file of the CA that signed the TLS server's certificate.", valueName: "FILE"))
    var ca: String?

    @Option(name: .customLong("sse-server"), help: ArgumentHelp("A server of event streams (Integration/Servers/sse_server.py) for the server-sent events step.", valueName: "URL"))
    var sseServer: String?
}
