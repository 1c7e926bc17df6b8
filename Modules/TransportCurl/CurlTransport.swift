internal import CCurl
import CourierCore
import FoundationEssentials
import HTTPTypes
import Synchronization

/// The libcurl transport: HTTP/1.1 and HTTP/2, connection reuse, streaming bodies in both
/// directions with backpressure, real suspend/resume, timeouts, proxies, Unix sockets and
/// metrics, on one curl multi handle driven by a dedicated thread.
///
/// ```swift
/// let transport = try CurlTransport()
/// let session = Session(transport: transport)
/// let response = try await session.data(for: HTTPRequest(method: .get, scheme: "https",
///                                                         authority: "example.com", path: "/"))
/// ```
/// curl never follows redirects here: the session's redirect stage does, so every hop is seen.
/// One transport is meant to be shared by many sessions and tasks; it keeps its connections.
///
/// A session's ``CourierCore/ServerTrustEvaluator`` (e.g. `CourierSecurity`'s `SecurityPolicy`) runs
/// inside each new HTTPS connection's TLS handshake, on the transport's thread; a refusal aborts the
/// handshake before a byte of the request is sent, and the task fails with the evaluator's error.
/// Connections one evaluator accepted serve only requests with an equal evaluator. Without an evaluator
/// curl verifies as usual (``Configuration/certificateAuthorityFile``, ``Configuration/verifiesPeer``).
public final class CurlTransport: Transport, CallerExecutorTransport {
    /// How the transport connects.
    public struct Configuration: Sendable {
        /// Which HTTP version to speak.
        public enum HTTPVersion: Sendable, Hashable {
            /// HTTP/2 when TLS's ALPN agrees, otherwise HTTP/1.1 (cleartext is always HTTP/1.1).
            case automatic
            /// HTTP/1.1 only.
            case http1_1
            /// HTTP/2: ALPN over TLS, prior knowledge over cleartext.
            case http2
        }

        /// Which HTTP version to speak.
        public var httpVersion: HTTPVersion = .automatic
        /// Whether requests to one host share an HTTP/2 connection (`CURLMOPT_PIPELINING`, and
        /// `CURLOPT_PIPEWAIT` where HTTP/2 is possible: HTTPS, or ``HTTPVersion/http2``).
        public var multiplexing = true
        /// Idle connections kept for reuse (`CURLMOPT_MAXCONNECTS`); never fewer than
        /// ``maximumConnectionsPerHost``, so a busy host's connections are all kept.
        public var maximumCachedConnections = 64
        /// Connections per host (`CURLMOPT_MAX_HOST_CONNECTIONS`); 0 means no limit. Calls beyond it
        /// wait in the transport for a connection to come free, so with any number of calls in flight
        /// to one host at most this many connections are ever opened, and each is reused.
        ///
        /// 8 by default, AsyncHTTPClient's HTTP/1.1 limit (URLSession and browsers use 6, okhttp 5
        /// requests per host): enough to keep a server busy over loopback or a LAN without a TLS
        /// handshake per request. Without a limit, more calls in flight than the cache keeps
        /// (``maximumCachedConnections``) open a new connection for almost every request. Over HTTP/2
        /// the calls share connections as streams, so the limit rarely binds. Raise it for slow
        /// HTTP/1.1 servers whose calls mostly wait.
        public var maximumConnectionsPerHost = 8
        /// Connections in all; 0 means no limit (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
        public var maximumTotalConnections = 0
        /// Whether the transport itself sends a request once more, on another connection, when its connection is
        /// lost before a byte of the answer comes in one of the two ways libcurl leaves to its caller, where the server
        /// most likely did not process it:
        /// - its send met the close of an HTTP/1 connection kept from an earlier exchange, which the server had closed
        ///   or reset (a keep-alive timeout, a reload, a graceful shutdown) as the request went out;
        /// - an HTTP/2 GOAWAY refused its stream (RFC 9113 section 6.8: not processed, and safe to send again), on a
        ///   kept connection or on one a reloading server accepted a moment before.
        ///
        /// libcurl itself already sends a request again when a kept connection's read finds it closed, for any method;
        /// this covers what it leaves to its caller, under the same rule, as okhttp's `retryOnConnectionFailure` does.
        /// Under an nginx reloaded every 20 ms about one call in 8,000 met such a loss. The caller sees the second
        /// attempt only (its events and metrics; a session's retry policy decides on what it does); once per call, on top
        /// of libcurl's own. A request is sent again whatever its method, when its body can be read again: none, bytes,
        /// a file or a form, or a streamed body libcurl had not begun to read. Any other lost connection (a reset met
        /// reading, an HTTP/2 stream the server reset, a send that failed on a connection opened for the request, or
        /// over ``unixSocketPath``, whose connections have no ends to tell a kept one by) stays the caller's.
        /// ``CurlTransport/connectionLossResends`` counts them.
        ///
        /// True by default. Set false where a request must never reach a server twice: a server may have taken a
        /// request and closed a kept connection without a byte of answer, or answered it early (a 413 after the head)
        /// and closed it with the body unread, the answer lost to the reset; and rarely a server breaking HTTP/2 ends
        /// its session as a GOAWAY does. libcurl's own resend cannot be turned off.
        public var resendsOnConnectionLoss = true
        /// Decode gzip, deflate, br and zstd bodies and advertise them in `Accept-Encoding`.
        ///
        /// Courier decodes, not libcurl: the transport holds the compressed bytes (at most
        /// ``responseBufferSize``) and the body's reader pulls decoded bytes 64 KiB at a time, so a
        /// slow reader never makes the transport buffer a body's decoded size. The response's head is
        /// left as the server sent it (`Content-Encoding`, `Content-Length` of the encoded body).
        ///
        /// Off, bodies arrive as the server encoded them, but for a transfer coding (`Transfer-Encoding: gzip`),
        /// which belongs to the connection, not to the body, and is undone either way.
        public var automaticDecompression = true
        /// Limits on what a compressed body may decode to.
        public var decompressionLimits = DecompressionLimits()
        /// A proxy URL, e.g. `http://127.0.0.1:3128`, `socks5h://127.0.0.1:1080`. The environment never steers
        /// requests: `nil` ignores the `http_proxy` variables, and a proxy set here is used for every host but
        /// ``proxyBypassHosts``, whatever `no_proxy` says. Without a scheme, `http://`. A URL libcurl cannot use (one it
        /// cannot parse, a scheme other than http, https, socks4, socks4a, socks5 and socks5h) makes the transport's
        /// initializer throw `.unsupported`; the empty string is no proxy.
        public var proxy: String?
        /// Hosts reached directly although ``proxy`` is set, by libcurl's rules for `CURLOPT_NOPROXY`: a name matches
        /// itself and the names under it (`example.com` also matches `api.example.com`), an IP address itself, an
        /// address with a prefix length (`10.0.0.0/8`) the addresses in it, and `["*"]`, alone, every host. Each
        /// entry is one host, without commas or spaces, and `*` is the only entry when it is one. The transport
        /// refuses other lists when it starts, with ``proxy`` set or not, so a bad list fails before the day a proxy
        /// is added.
        public var proxyBypassHosts: [String] = []
        /// Connect through this Unix-domain socket instead of TCP.
        public var unixSocketPath: String?
        /// A PEM file of CA certificates to trust instead of the system store.
        public var certificateAuthorityFile: String?
        /// A PEM file of CA certificates to trust for an HTTPS proxy's own certificate (`https://` in ``proxy``)
        /// instead of the system store. ``certificateAuthorityFile`` and ``verifiesPeer`` are the servers' alone: the
        /// proxy's certificate is always verified, and with `nil` against the system store.
        public var proxyCertificateAuthorityFile: String?
        /// Verify the server's certificate chain (`--insecure` turns it off). Ignored for requests with a
        /// ``CourierCore/ServerTrustEvaluator``, which decides instead, in the handshake.
        public var verifiesPeer = true
        /// Verify that the certificate names the host. Ignored for requests with a trust evaluator.
        public var verifiesHost = true
        /// Whether an HTTPS body that ends with its connection (an HTTP/1 answer with neither `Content-Length` nor
        /// chunked coding) must end with the server's TLS `close_notify` alert, as RFC 9112 section 9.8 asks. Without
        /// it the call fails `.truncatedBody`: a TCP FIN is not authenticated, so anyone on the path can cut such a body
        /// short. Set false only for a server known to close without the alert (some old or embedded ones); a body
        /// cut on the way then passes for whole, as curl takes it. Bodies framed by a length or by chunks, and HTTP/2,
        /// never need the alert.
        public var requiresCloseNotify = true
        /// The certificate and key presented to servers that ask for one (mutual TLS). Its certificate
        /// is part of libcurl's connection matching: connections are not shared across client certificates.
        public var clientCertificate: ClientCertificate?
        /// Bytes of response body held for a slow reader before the transfer pauses.
        ///
        /// Over HTTP/2 a paused stream can cost more: libcurl 7.88 keeps what the server still sends within the
        /// stream's 32 MiB flow-control window after the pause (docs/curl-transport.md, caveats).
        public var responseBufferSize = 1024 * 1024
        /// Bytes of request body read ahead of the socket.
        public var requestBufferSize = 1024 * 1024
        /// curl's receive buffer (`CURLOPT_BUFFERSIZE`). 64 KiB stays below glibc's `mmap`
        /// threshold: a recycled handle's buffer then comes from the heap instead of fresh pages
        /// (page faults cost small requests more than larger buffers save big ones).
        public var receiveBufferSize = 64 * 1024
        /// curl's upload buffer (`CURLOPT_UPLOAD_BUFFERSIZE`), allocated only for requests with
        /// a body, so it can be large.
        public var sendBufferSize = 256 * 1024
        /// How long the curl thread may keep polling, without sleeping, once it has nothing to do: the window
        /// adapts between nothing and this, growing while events come soon after the thread goes idle and
        /// shrinking while they do not, so an idle transport does not poll. A caller's next request or a
        /// server's answer that comes within the window costs no wake-up of the thread. `.zero` turns it off.
        public var idlePolling: Duration = .microseconds(200)
        /// How long the curl thread may hold a call whose whole answer has arrived, while at least four other calls
        /// on the wire may end soon (they wait for their heads, or little is left of their bodies), so that the
        /// callers of the calls finishing meanwhile are resumed together: on Swift's shared pool one wake-up of a
        /// pool thread then serves several. None is held longer than this from the first; eight waiting are
        /// resumed at once; with fewer in flight nothing is held. The
        /// call's events (its head, progress, metrics) are reported when it is resumed. Failures, cancelled calls
        /// and callers that run on ``CurlTransport/executor`` (resuming them wakes nothing) are never held.
        ///
        /// While it holds, the thread polls without sleeping, as ``idlePolling`` does: a program that turns idle
        /// polling off to spend no processor time waiting should turn this off too. `.zero` turns it off, also for
        /// a program that counts every microsecond of latency more than throughput and CPU.
        public var completionCoalescing: Duration = .microseconds(100)
        /// Print libcurl's own trace to stderr.
        public var verbose = false
        /// Receives libcurl's own trace, one ``CourierCore/TransportDiagnostic`` at a time, instead
        /// of stderr (``verbose`` is then ignored); body bytes are counted, never shown. Called on
        /// the transport's thread: keep it quick (CourierLogging's `RequestLogging.transportDiagnostics`
        /// writes to a `Logger` with credentials redacted). `nil`, the default, costs nothing.
        public var diagnostics: TransportDiagnosticsHandler?

        /// The defaults.
        public init() {}
    }

    /// The configuration in force.
    public let configuration: Configuration
    let loop: CurlMultiLoop

    /// A transport with its own curl thread and connection pool.
    /// - Throws: ``CourierCore/TransportError`` when libcurl cannot start.
    public init(configuration: Configuration = Configuration()) throws {
        try ProxySettingsCheck.check(configuration)
        self.configuration = configuration
        self.loop = try CurlMultiLoop(configuration: configuration)
        try loop.start()
    }

    /// Stops the transport: every request in flight fails with a ``CourierCore/TransportError`` whose
    /// code is `.shutDown`, and so does every later one; the curl thread ends after closing every
    /// connection and freeing every handle. Returns once it has. Safe to call more than once and from
    /// any task.
    ///
    /// Call it (or ``shutdownAll()``) before the program exits, so that what is in flight ends while the
    /// program can still handle it. Should a program exit with a transport running, an exit handler of
    /// Courier's shuts it down before OpenSSL's clean-up runs, waiting up to 2 seconds; it cannot wait for a
    /// transport whose thread is the exiting one, nor make one that is still closing after that time safe
    /// (docs/curl-transport.md, "Shutting down, and program exit").
    public func shutdown() async {
        loop.submit(.shutdown)
        await loop.waitUntilStopped()
    }

    /// Shuts down every `CurlTransport` of the process (`Session.shared`'s too, and those already
    /// released whose thread is still closing), and returns once all have stopped. The rule for
    /// program exit: `await CurlTransport.shutdownAll()` before `exit`, or before `main` returns (see
    /// ``shutdown()`` for what happens without it).
    public static func shutdownAll() async {
        await CurlMultiLoop.stopAll()
    }

    /// Releasing the transport stops it too, without waiting: its thread finishes the shutdown on its
    /// own. Requests in flight keep it alive until they end.
    deinit {
        loop.submit(.shutdown)
    }

    /// The libcurl in use, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 brotli/1.0.9 zstd/1.5.4 nghttp2/1.52.0`.
    public static var libcurlVersion: String { String(cString: ccurl_version()) }

    /// An executor running on the transport's curl thread.
    ///
    /// ```swift
    /// let response = try await withTaskExecutorPreference(transport.executor) {
    ///     try await session.data(for: request)
    /// }
    /// ```
    /// With this preference the session's work and the transfer's completion share one thread,
    /// saving the hop between threads that dominates small requests. Work run there must never
    /// block: it would stall every transfer of the transport.
    public var executor: any TaskExecutor { loop.executor }

    /// How often the curl thread was woken from its poll by a command: a figure for benchmarks.
    public var wakeupCount: Int { loop.wakeups.load(ordering: .relaxed) }

    /// How many requests the transport sent again, each once, after their connection was lost before any answer came
    /// (``Configuration/resendsOnConnectionLoss``): a figure for monitoring how often servers close connections under
    /// this transport's calls.
    public var connectionLossResends: Int { loop.resends.load(ordering: .relaxed) }

    /// How long the curl thread has spent in all polling before it slept (``Configuration/idlePolling``): a
    /// figure for benchmarks, and for checking what the polling costs a program.
    public var idlePollingTime: Duration { .nanoseconds(loop.pollingNanoseconds.load(ordering: .relaxed)) }

    private static func isHTTP(_ scheme: String) -> Bool {
        scheme == "http" || scheme == "https" || ["http", "https"].contains(scheme.lowercased())
    }

    public func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        try await sendOnCallerExecutor(request, body: body, context: context)
    }

    /// `send` on the caller's executor, which a session's chain calls (see `CallerExecutorTransport`).
    package nonisolated(nonsending) func sendOnCallerExecutor(
        _ request: HTTPRequest, body: Body?, context: RequestContext
    ) async throws -> Response {
        // The URL from the request's parts, without a round trip through Foundation's URL.
        guard let scheme = request.scheme, let authority = request.authority, let path = request.path,
              Self.isHTTP(scheme)
        else {
            throw TransportError(.unsupported, message: "CurlTransport sends http and https URLs only")
        }
        // A target curl would read otherwise (`good.example/x@evil.example`, an empty host, a path
        // without `/`) would make curl connect to one host while a trust evaluator judged another.
        try RequestValidation.checkTarget(request, authority: authority, path: path)
        var request = request
        if let fields = try RequestValidation.headerFields(of: request, authority: authority, body: body) {
            request.headerFields = fields
        }
        // Fail closed: a trust evaluator this transport cannot run must never be skipped.
        if context.trustEvaluator != nil, scheme.count == 5, OpenSSLRuntime.shared == nil {
            throw TransportError(.tlsFailure, message: "this libcurl (\(Self.libcurlVersion)) cannot run a ServerTrustEvaluator during the TLS handshake (it needs OpenSSL); refusing to connect")
        }
        let transfer = CurlTransfer(request: request, body: body, context: context, owner: self)
        return try await transfer.awaitHead()
    }
}
