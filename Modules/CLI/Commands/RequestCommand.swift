import ArgumentParser
import CourierCurl

/// `courier [OPTIONS] [METHOD] URL [ITEM ...]`: the options as swift-argument-parser reads them.
/// ``RequestRunner`` does the work.
struct RequestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier",
        abstract: "A command-line HTTP client built from Courier's modules.",
        usage: """
            courier [OPTIONS] [METHOD] URL [ITEM ...]
            courier tour --server URL [--tls-server URL --ca FILE]
            courier reachability [HOST | ADDRESS] [--watch]
            """,
        discussion: """
            METHOD is case-insensitive; without it, GET, or POST when a data or
            file item is given. URL needs a scheme (http:// or https://).

            Items:
              Name:Value    request header (a value with CR or LF is refused)
              name==value   query parameter (AFNetworking's query rules)
              name=value    data field: a JSON string, or a form field with -f
              name:=json    raw JSON value (JSON mode only)
              name@path     file field: the request becomes a multipart form and
                            the file is streamed from disk
            Names nest with brackets: user[name]=x builds {"user":{"name":"x"}};
            tags[]=a tags[]=b builds an array. A backslash escapes a separator:
            a\\=b=c is the field "a=b".

            Exit status: 0 for a 2xx response; 3, 4 or 5 for a final 3xx, 4xx or
            5xx (the body is still printed); 2 for a timeout; 6 for too many
            redirects; 7 for a TLS or trust failure (the error lists the server
            chain's pins); 1 for anything else.

            Examples:
              courier http://127.0.0.1:18080/get page==2 q=='swift http'
              courier http://127.0.0.1:18080/post name=Ada n:=1 'user[role]=x'
              courier -f http://127.0.0.1:18080/post name=Ada
              courier -d http://127.0.0.1:18081/files/1m.bin
              courier --cacert ca.pem --pin-key sha256/… https://127.0.0.1:18083/get
            """,
        version: CourierVersion.string
    )

    @Flag(help: "Send data items as a JSON object (the default with data items).")
    var json = false

    @Flag(name: [.customShort("f"), .long], help: "Send data items as a URL-encoded form.")
    var form = false

    @Flag(help: "Send data items as a multipart form (the default with name@path file items).")
    var multipart = false

    @Option(help: ArgumentHelp("Throttle a multipart upload: at most BYTES per read, then a pause of SECONDS.", valueName: "BYTES:SECONDS"))
    var throttle: String?

    @Flag(name: .shortAndLong, help: "Print the request head and every response head, redirect hops included, to stderr.")
    var verbose = false

    @Flag(help: "Print the final response head to stdout instead of the body.")
    var headers = false

    @Flag(inversion: .prefixedNo, help: "Pretty-print JSON bodies (default: on when stdout is a terminal).")
    var pretty: Bool?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the body to FILE.", valueName: "FILE"))
    var output: String?

    @Flag(name: .shortAndLong, help: "Write the body to a file named from Content-Disposition or the URL; never overwrite.")
    var download = false

    @Flag(name: [.customShort("c"), .customLong("continue")], help: "With -d or -o: resume a partial file (Range, If-Range).")
    var resume = false

    @Flag(inversion: .prefixedNo, help: "Show a progress bar on stderr (default: on when stderr is a terminal and the body is over 1 MiB).")
    var progress: Bool?

    @Option(name: [.customShort("a"), .long], help: ArgumentHelp("Basic authorization (credentials in the URL, user:pass@host, are used when neither this nor --bearer is given).", valueName: "USER:PASS"))
    var auth: String?

    @Option(help: ArgumentHelp("Bearer authorization.", valueName: "TOKEN"))
    var bearer: String?

    @Option(help: ArgumentHelp("Time limit for the whole exchange, in seconds (decimals allowed).", valueName: "S"))
    var timeout: Double?

    @Option(name: .customLong("connect-timeout"), help: ArgumentHelp("Time limit for connecting, in seconds.", valueName: "S"))
    var connectTimeout: Double?

    @Option(name: .customLong("max-redirects"), help: ArgumentHelp("Follow up to N redirects; 0 follows none.", valueName: "N"))
    var maxRedirects = 10

    @Flag(name: .customLong("http1.1"), help: "Speak HTTP/1.1 only.")
    var http1 = false

    @Flag(name: .customLong("http2"), help: "Prefer HTTP/2 (ALPN over TLS, prior knowledge over cleartext).")
    var http2 = false

    @Flag(help: "Print the transfer's timing and size metrics to stderr.")
    var timing = false

    @Flag(help: "Print the equivalent curl command line and exit without sending.")
    var curl = false

    @Option(help: ArgumentHelp("Send through this proxy.", valueName: "URL"))
    var proxy: String?

    @Option(name: .customLong("proxy-cacert"), help: ArgumentHelp("Trust the CA certificates in FILE (PEM) for an HTTPS proxy's own certificate instead of the system store.", valueName: "FILE"))
    var proxyCacert: String?

    @Option(name: .customLong("unix-socket"), help: ArgumentHelp("Connect over this Unix-domain socket.", valueName: "PATH"))
    var unixSocket: String?

    @Option(help: ArgumentHelp("Trust the CA certificates in FILE (PEM) instead of the system store.", valueName: "FILE"))
    var cacert: String?

    @Option(name: .customLong("pin-cert"), help: ArgumentHelp("Certificate pinning: the server's chain must contain a certificate of FILE (PEM or DER; repeatable).", valueName: "FILE"))
    var pinCert: [String] = []

    @Option(name: .customLong("pin-key"), help: ArgumentHelp("Public-key pinning: sha256/BASE64 of a key, or a certificate FILE whose key to pin (repeatable).", valueName: "PIN"))
    var pinKey: [String] = []

    @Flag(name: [.customShort("k"), .long], help: "Allow invalid certificates; without a pin also skip the host name check, like curl -k (prints a warning).")
    var insecure = false

    @Flag(name: .customLong("no-verify-host"), help: "Do not check that the certificate names the host.")
    var noVerifyHost = false

    @Option(help: ArgumentHelp("Client certificate for mutual TLS (PEM).", valueName: "FILE"))
    var cert: String?

    @Option(help: ArgumentHelp("The client certificate's private key (PEM; default: the --cert file).", valueName: "FILE"))
    var key: String?

    @Option(help: ArgumentHelp("The password of an encrypted --key.", valueName: "PASSWORD"))
    var pass: String?

    @Flag(name: .shortAndLong, help: "No output but errors.")
    var quiet = false

    @Option(help: ArgumentHelp("Keep cookies and authorization (for its origin only) between runs, in a session named NAME for this host (or the directory NAME when it holds '/').", valueName: "NAME"))
    var session: String?

    @Flag(help: "Print the body line by line as each line arrives (event streams, NDJSON, logs); JSON lines are pretty-printed one by one.")
    var stream = false

    @Argument(help: ArgumentHelp("[METHOD] URL [ITEM ...]", valueName: "request"))
    var arguments: [String] = []

    /// The TLS options.
    var trustOptions: TrustOptions {
        TrustOptions(
            caFile: cacert, pinnedCertificateFiles: pinCert, pinnedKeys: pinKey, insecure: insecure,
            noVerifyHost: noVerifyHost, clientCertificateFile: cert, clientKeyFile: key, clientKeyPassword: pass
        )
    }

    /// The HTTP version asked for.
    func httpVersion() throws(CLIError) -> CurlTransport.Configuration.HTTPVersion {
        switch (http1, http2) {
        case (true, true): throw CLIError("--http1.1 and --http2 exclude each other")
        case (true, false): return .http1_1
        case (false, true): return .http2
        case (false, false): return .automatic
        }
    }
}
