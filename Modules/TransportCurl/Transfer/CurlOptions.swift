internal import CCurl
import CourierCore
import HTTPTypes

/// Every `curl_easy_setopt` a transfer needs, in one place, in two parts: what never changes for
/// a transport's handles (set once when a handle is made) and what each request sets. Pooled
/// handles are not `curl_easy_reset`: every option a previous request may have changed is set
/// again here, so nothing carries over.
enum CurlOptions {
    /// Options that are the same for every request of a transport; `loop` is its ``CurlMultiLoop``, unretained.
    static func configureHandle(_ easy: CurlEasy, options: CurlTransport.Configuration, loop: UnsafeMutableRawPointer) {
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_FOLLOWLOCATION, 0)   // Core's redirect stage follows redirects.
        easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // No CURLOPT_PROTOCOLS_STR: the URL is built from an http(s) request and curl never
        // follows redirects here, so it cannot reach another protocol.
        ccurl_easy_setopt_write_function(easy.raw, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        ccurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        ccurl_easy_setopt_read_function(easy.raw, curlReadCallback)
        ccurl_easy_setopt_seek_function(easy.raw, curlSeekCallback)
        ccurl_easy_setopt_xferinfo_function(easy.raw, curlProgressCallback)
        // The loop's table of sockets (``ConnectionSockets``): which socket a reused connection is, and whether it
        // has bytes waiting before a request is sent on it (the prerequest callback, whose data is the transfer).
        ccurl_easy_setopt_sockopt_function(easy.raw, curlSocketOpenedCallback)
        easy.set(CURLOPT_SOCKOPTDATA, pointer: loop)
        ccurl_easy_setopt_closesocket_function(easy.raw, curlCloseSocketCallback)
        easy.set(CURLOPT_CLOSESOCKETDATA, pointer: loop)
        ccurl_easy_setopt_prereq_function(easy.raw, curlPrerequestCallback)
        // Bodies are decoded by Courier (`DecodedResponseBody`), never by libcurl: its decoding runs inside its
        // read and, while the reader is behind, holds everything one read decodes to (up to 64 MiB) outside every
        // bound of ours. So no CURLOPT_ACCEPT_ENCODING either: the transfer sends `Accept-Encoding` as a header
        // line of its own (`CurlTransfer.configureHeaders`), which libcurl would otherwise format byte by byte
        // twice per request (Callgrind: 9,000 instructions, against 5,500 for the line).
        easy.set(CURLOPT_HTTP_CONTENT_DECODING, 0)
        easy.set(CURLOPT_BUFFERSIZE, options.receiveBufferSize)
        easy.set(CURLOPT_UPLOAD_BUFFERSIZE, options.sendBufferSize)
        easy.set(CURLOPT_TCP_NODELAY, 1)
        easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        // A transfer that leaves the multi handle during its name lookup (cancelled, timed out) lets the lookup's
        // thread finish and free itself, rather than wait for it: libcurl's threaded resolver would otherwise hold the
        // curl thread, and every call of the transport, until the lookup gave up (up to the resolver's timeout, 10 s
        // or more; SlowNameLookupTests). The option's name says exit because it was made for programs about to exit,
        // but libcurl only reads it to decide whether to wait for a lookup's thread. libcurl before 7.87 ignores it.
        easy.set(CURLOPT_QUICK_EXIT, 1)
        if let proxy = options.proxy {
            easy.set(CURLOPT_PROXY, proxy)
            // Set even when empty: without it libcurl reads `no_proxy` and `NO_PROXY` from the environment and sends
            // the hosts they name around the proxy the program chose.
            easy.set(CURLOPT_NOPROXY, options.proxyBypassHosts.joined(separator: ","))
        } else {
            // Ignore http_proxy & co. unless a proxy is configured. `NOPROXY "*"` rather than `PROXY ""`: libcurl copies
            // a set proxy string for every transfer, even an empty one (a `malloc` per call), and with "*" it skips
            // reading the proxy variables at all.
            easy.set(CURLOPT_NOPROXY, "*")
        }
        if let socket = options.unixSocketPath { easy.set(CURLOPT_UNIX_SOCKET_PATH, socket) }
        if let caFile = options.certificateAuthorityFile { easy.set(CURLOPT_CAINFO, caFile) }
        if let proxyCAFile = options.proxyCertificateAuthorityFile { easy.set(CURLOPT_PROXY_CAINFO, proxyCAFile) }
        if let client = options.clientCertificate {
            // Blobs, copied by libcurl: no file is read at connect time. The certificate blob is part of
            // libcurl's connection matching, so connections with another client certificate are not shared.
            _ = client.certificatePEM.withUnsafeBytes { ccurl_easy_setopt_blob(easy.raw, CURLOPT_SSLCERT_BLOB, $0.baseAddress, $0.count) }
            _ = client.privateKeyPEM.withUnsafeBytes { ccurl_easy_setopt_blob(easy.raw, CURLOPT_SSLKEY_BLOB, $0.baseAddress, $0.count) }
            easy.set(CURLOPT_SSLCERTTYPE, "PEM")
            easy.set(CURLOPT_SSLKEYTYPE, "PEM")
            if let password = client.password { easy.set(CURLOPT_KEYPASSWD, password) }
        }
        if options.diagnostics != nil {
            ccurl_easy_setopt_debug_function(easy.raw, curlDebugCallback)
            easy.set(CURLOPT_VERBOSE, 1)
        } else if options.verbose {
            easy.set(CURLOPT_VERBOSE, 1)
        }
    }

    /// The TLS verification of one request: libcurl's own (system store or the configured CA file), or the
    /// request's trust evaluator run in the handshake by a ``TrustHook``.
    ///
    /// With a hook, OpenSSL's verification is replaced by the hook's callback, which needs
    /// `CURLOPT_SSL_VERIFYPEER` on (only then does a refusal abort the handshake); libcurl's host-name
    /// check is off (the evaluator decides, e.g. `validatesDomainName = false`); TLS session resumption is
    /// off (a resumed session skips certificate verification, so the evaluator would not run); and the
    /// cipher list carries the evaluator's tag (``CurlMultiLoop/trustTag(for:)``): `DEFAULT` plus an
    /// exclusion of a cipher that does not exist, which OpenSSL ignores, so the ciphers offered are
    /// OpenSSL's defaults, while libcurl, which compares cipher lists when it looks for a connection to
    /// reuse, keeps each evaluator's connections apart from every other's and from unevaluated ones.
    /// - Throws: a ``CourierCore/TransportError`` when libcurl cannot take the hook (fail closed).
    static func configureTrust(_ easy: CurlEasy, hook: TrustHook?, options: CurlTransport.Configuration, loop: CurlMultiLoop) throws {
        guard let hook else {
            easy.set(CURLOPT_SSL_VERIFYPEER, options.verifiesPeer ? 1 : 0)
            easy.set(CURLOPT_SSL_VERIFYHOST, options.verifiesHost ? 2 : 0)
            easy.set(CURLOPT_SSL_SESSIONID_CACHE, 1)
            easy.set(CURLOPT_SSL_CIPHER_LIST, pointer: nil)
            ccurl_easy_setopt_ssl_ctx_function(easy.raw, nil)
            easy.set(CURLOPT_SSL_CTX_DATA, pointer: nil)
            return
        }
        let (tag, reusable) = loop.trustTag(for: hook.evaluator)
        hook.keepsNoConnection = !reusable
        easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        easy.set(CURLOPT_SSL_VERIFYHOST, 0)
        easy.set(CURLOPT_SSL_SESSIONID_CACHE, 0)
        if !reusable {
            easy.set(CURLOPT_FRESH_CONNECT, 1)
            easy.set(CURLOPT_FORBID_REUSE, 1)
        }
        guard OpenSSLRuntime.shared != nil,
              easy.set(CURLOPT_SSL_CIPHER_LIST, "DEFAULT:!COURIER-TRUST-EVALUATOR-\(tag)") == CURLE_OK,
              ccurl_easy_setopt_ssl_ctx_function(easy.raw, TrustHook.contextCallback) == CURLE_OK,
              easy.set(CURLOPT_SSL_CTX_DATA, pointer: Unmanaged.passUnretained(hook).toOpaque()) == CURLE_OK
        else {
            ccurl_easy_setopt_ssl_ctx_function(easy.raw, nil)
            easy.set(CURLOPT_SSL_CTX_DATA, pointer: nil)
            throw TransportError(.tlsFailure, message: "this libcurl (\(CurlTransport.libcurlVersion)) cannot run a ServerTrustEvaluator during the TLS handshake (it needs OpenSSL); refusing to connect")
        }
    }

    /// Options of one request: URL, user data, method and body, headers, protocol, timeouts.
    static func configureRequest(
        _ easy: CurlEasy,
        for transfer: CurlTransfer,
        userData: UnsafeMutableRawPointer
    ) {
        let options = transfer.options
        let request = transfer.request
        setURL(easy, of: request)
        easy.set(CURLOPT_PRIVATE, pointer: userData)
        easy.set(CURLOPT_HEADERDATA, pointer: userData)
        easy.set(CURLOPT_WRITEDATA, pointer: userData)
        easy.set(CURLOPT_READDATA, pointer: userData)
        easy.set(CURLOPT_SEEKDATA, pointer: userData)
        easy.set(CURLOPT_XFERINFODATA, pointer: userData)
        easy.set(CURLOPT_PREREQDATA, pointer: userData)
        if options.diagnostics != nil { easy.set(CURLOPT_DEBUGDATA, pointer: userData) }

        // Method and body. HTTPGET first: it undoes a previous request's POST, UPLOAD or NOBODY.
        let hasBody = transfer.hasBody
        easy.set(CURLOPT_HTTPGET, 1)
        easy.set(CURLOPT_CUSTOMREQUEST, pointer: nil)
        easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: -1)
        easy.set(CURLOPT_INFILESIZE_LARGE, offset: -1)
        // Upload progress comes from curl's counters; downloads count their own bytes, so a
        // request without a body does without the progress callback.
        easy.set(CURLOPT_NOPROGRESS, hasBody ? 0 : 1)
        switch request.method {
        case .get where !hasBody:
            break
        case .head:
            easy.set(CURLOPT_NOBODY, 1)
        case .post:
            easy.set(CURLOPT_POST, 1)
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: hasBody ? transfer.bodyLength ?? -1 : 0)
        default:
            if hasBody { easy.set(CURLOPT_UPLOAD, 1) }
            easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        if hasBody {
            if request.method != .post {
                easy.set(CURLOPT_INFILESIZE_LARGE, offset: transfer.bodyLength ?? -1)
            }
            if request.method == .get || request.method == .head {
                easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
        }
        transfer.configureHeaders(on: easy, expectsBody: hasBody)

        // Protocol
        var freshConnection = false
        switch options.httpVersion {
        case .automatic:
            easy.set(CURLOPT_HTTP_VERSION, ccurl_http_version_2tls)
        case .http1_1:
            easy.set(CURLOPT_HTTP_VERSION, ccurl_http_version_1_1)
        case .http2:
            let cleartext = request.scheme == "http"
            easy.set(CURLOPT_HTTP_VERSION, cleartext ? ccurl_http_version_2_prior_knowledge : ccurl_http_version_2_0)
            freshConnection = priorKnowledgeNeedsFreshConnection(request, options: options)
        }
        // A request sent again after its kept connection was lost takes a new one, which later requests may share.
        easy.set(CURLOPT_FRESH_CONNECT, freshConnection || transfer.resendsOnNewConnection ? 1 : 0)
        easy.set(CURLOPT_FORBID_REUSE, freshConnection ? 1 : 0)
        // PIPEWAIT makes a request wait for a connection to the same host whose ability to multiplex is not
        // known yet, rather than open its own. Over TLS that is known at the handshake (ALPN). In cleartext it
        // is known only once that connection's response head arrives, so a slow first answer would hold every
        // other request to the host until its head or its timeout (found by ChaosTests), and for nothing: the
        // automatic version never speaks HTTP/2 in cleartext. With prior knowledge (.http2) a cleartext
        // connection is HTTP/2 from its first byte, so the wait is short there.
        easy.set(CURLOPT_PIPEWAIT, mayMultiplex(request, options: options) ? 1 : 0)

        // Timeouts (0 means curl's default: none, or 300 s to connect). A transfer that waited for a connection
        // in the loop (`HostAdmission`) has what is left until the deadline set when it began to wait.
        let timeouts = transfer.context.timeouts
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, timeouts.connect.map(milliseconds) ?? 0)
        if let deadline = transfer.requestDeadline {
            transfer.libcurlTimeoutMilliseconds = milliseconds(ContinuousClock.now.duration(to: deadline))
        } else {
            transfer.libcurlTimeoutMilliseconds = timeouts.request.map(milliseconds) ?? 0
        }
        easy.set(CURLOPT_TIMEOUT_MS, transfer.libcurlTimeoutMilliseconds)
        if let lowSpeed = timeouts.lowSpeedTime {
            // Whole seconds, rounded up (`milliseconds` is at least 1, and at most what libcurl can multiply by 1000).
            easy.set(CURLOPT_LOW_SPEED_TIME, (milliseconds(lowSpeed) - 1) / 1000 + 1)
            easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, timeouts.lowSpeedLimit))
        } else {
            easy.set(CURLOPT_LOW_SPEED_TIME, 0)
            easy.set(CURLOPT_LOW_SPEED_LIMIT, 0)
        }
    }

    /// Whether `request` may share a connection with others (HTTP/2): HTTPS with a version that allows HTTP/2
    /// (ALPN decides), or HTTP/2 by prior knowledge. Any other request needs a connection of its own.
    static func mayMultiplex(_ request: HTTPRequest, options: CurlTransport.Configuration) -> Bool {
        options.multiplexing && options.httpVersion != .http1_1
            && (request.scheme == "https" || options.httpVersion == .http2)
    }

    /// libcurl before 8.0 fails the second request on a reused prior-knowledge connection with "Error in the
    /// HTTP2 framing layer" (curl issue #10634): each such request gets its own connection.
    static func priorKnowledgeNeedsFreshConnection(_ request: HTTPRequest, options: CurlTransport.Configuration) -> Bool {
        options.httpVersion == .http2 && request.scheme == "http" && ccurl_version_number() < 0x08_00_00
    }

    /// The line of the loop's ``HostAdmission`` a transfer waits in: libcurl counts connections per scheme,
    /// host and port, and so does the key (the host lowercased, a default port left out).
    struct AdmissionKey: Hashable {
        /// HTTPS rather than HTTP: the two never share a connection.
        let secure: Bool
        /// Host and port, normalized (``normalized(_:secure:)``).
        let authority: String
        /// Both parts hashed once: the loop looks a transfer's key up two or three times (start, release), and
        /// hashing the authority's bytes each time cost more than the lookups themselves.
        private let hash: Int

        init(secure: Bool, authority: String) {
            self.secure = secure
            self.authority = authority
            var hasher = Hasher()
            hasher.combine(secure)
            hasher.combine(authority)
            hash = hasher.finalize()
        }

        static func == (left: AdmissionKey, right: AdmissionKey) -> Bool {
            left.hash == right.hash && left.secure == right.secure && left.authority == right.authority
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    /// Where `request` waits for a connection of its own in the loop, or nil when libcurl alone limits its
    /// connections: no per-host limit, a proxy or a Unix socket (whose connections libcurl counts under
    /// another name), or a request that may share a connection (HTTP/2) and is not forced onto a fresh one
    /// (prior knowledge before libcurl 8, or a trust evaluator that cannot be recognized again).
    static func admissionKey(
        of request: HTTPRequest, options: CurlTransport.Configuration, trustEvaluator: (any ServerTrustEvaluator)?
    ) -> AdmissionKey? {
        guard options.maximumConnectionsPerHost > 0, options.proxy == nil, options.unixSocketPath == nil,
              let scheme = request.scheme, let authority = request.authority
        else { return nil }
        // The usual lowercase scheme is settled without making a lowercased copy on every request.
        let secure = scheme == "https" || (scheme != "http" && scheme.lowercased() == "https")
        let freshConnection = priorKnowledgeNeedsFreshConnection(request, options: options)
            || (secure && trustEvaluator.map { !($0 is any Hashable) } ?? false)
        guard !mayMultiplex(request, options: options) || freshConnection else { return nil }
        return AdmissionKey(secure: secure, authority: normalized(authority, secure: secure))
    }

    /// `authority` as libcurl tells hosts apart: case does not count, nor a port that is the scheme's default.
    /// Allocation-free for the usual lowercase authority without a default port.
    private static func normalized(_ authority: String, secure: Bool) -> String {
        var authority = authority
        // Over contiguous bytes when the string has them (nearly always): `contains` over a `UTF8View` walks it
        // through its index type, several times dearer per byte.
        let isUppercase = { (byte: UInt8) in byte >= 0x41 && byte <= 0x5A }
        let hasUppercase = authority.utf8.withContiguousStorageIfAvailable { $0.contains(where: isUppercase) }
            ?? authority.utf8.contains(where: isUppercase)
        if hasUppercase { authority = authority.lowercased() }
        let defaultPort = secure ? ":443" : ":80"
        if authority.hasSuffix(defaultPort) { authority.removeLast(defaultPort.count) }
        return authority
    }

    /// `scheme://authority/path` of a request `CurlTransport.send` checked.
    static func url(of request: HTTPRequest) -> String {
        "\(request.scheme ?? "")://\(request.authority ?? "")\(request.path ?? "")"
    }

    /// Sets `CURLOPT_URL` from the request's parts, written into a temporary buffer: libcurl copies the URL
    /// anyway, so a Swift string built for it would be one more allocation per request.
    private static func setURL(_ easy: CurlEasy, of request: HTTPRequest) {
        let scheme = request.scheme ?? "", authority = request.authority ?? "", path = request.path ?? ""
        let count = scheme.utf8.count + 3 + authority.utf8.count + path.utf8.count + 1
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            var offset = 0
            func write(_ text: some Collection<UInt8>) {
                offset += UnsafeMutableBufferPointer(rebasing: buffer[offset...]).initialize(fromContentsOf: text)
            }
            write(scheme.utf8)
            write("://".utf8)
            write(authority.utf8)
            write(path.utf8)
            buffer[offset] = 0
            buffer.withMemoryRebound(to: CChar.self) { _ = ccurl_easy_setopt_string(easy.raw, CURLOPT_URL, $0.baseAddress) }
        }
    }

    /// The longest time given to libcurl: 2⁵⁰ ms, about 35,700 years. libcurl multiplies and adds to the times it is
    /// given (a low-speed time of 2⁶³ / 1000 seconds, times 1000, wrapped below zero and failed every call at once), so
    /// a longer one, meaning "never", stops here.
    static let longestMilliseconds = 1 << 50

    /// Whole milliseconds, at least 1 (0 means "no limit" to libcurl), saturating at ``longestMilliseconds`` rather
    /// than trapping or wrapping for a duration too long for libcurl.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        guard seconds < Int64(longestMilliseconds / 1000) else { return longestMilliseconds }
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
