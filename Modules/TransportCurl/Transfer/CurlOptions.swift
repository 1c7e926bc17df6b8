internal import CCurl
import CourierCore
import HTTPTypes

/// Every `curl_easy_setopt` a transfer needs, in one place.
enum CurlOptions {
    static func configure(
        _ easy: CurlEasy,
        for transfer: CurlTransfer,
        userData: UnsafeMutableRawPointer,
        errorBuffer: UnsafeMutablePointer<CChar>
    ) throws {
        let options = transfer.options
        let request = transfer.request
        easy.set(CURLOPT_URL, transfer.url)
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_FOLLOWLOCATION, 0)   // Core's redirect stage follows redirects.
        easy.set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // No CURLOPT_PROTOCOLS_STR: the URL is built from an http(s) request and curl never
        // follows redirects here, so it cannot reach another protocol (and parsing it costs).
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))

        // Callbacks
        ccurl_easy_setopt_write_function(easy.raw, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        easy.set(CURLOPT_HEADERDATA, pointer: userData)
        ccurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        easy.set(CURLOPT_WRITEDATA, pointer: userData)

        // Method and body
        let hasBody = transfer.hasBody
        if hasBody {
            // Upload progress comes from curl's counters; downloads count their own bytes, so a
            // request without a body does without the progress callback.
            ccurl_easy_setopt_xferinfo_function(easy.raw, curlProgressCallback)
            easy.set(CURLOPT_XFERINFODATA, pointer: userData)
            easy.set(CURLOPT_NOPROGRESS, 0)
        }
        switch request.method {
        case .get where !hasBody:
            easy.set(CURLOPT_HTTPGET, 1)
        case .head:
            easy.set(CURLOPT_NOBODY, 1)
        case .post:
            easy.set(CURLOPT_POST, 1)
            if !hasBody { easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: 0) }
        default:
            if hasBody { easy.set(CURLOPT_UPLOAD, 1) }
            easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
        }
        if request.method == .post, hasBody {
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: transfer.bodyLength ?? -1)
        }
        if hasBody {
            ccurl_easy_setopt_read_function(easy.raw, curlReadCallback)
            easy.set(CURLOPT_READDATA, pointer: userData)
            ccurl_easy_setopt_seek_function(easy.raw, curlSeekCallback)
            easy.set(CURLOPT_SEEKDATA, pointer: userData)
            if request.method != .post {
                easy.set(CURLOPT_INFILESIZE_LARGE, offset: transfer.bodyLength ?? -1)
            }
            if request.method == .get || request.method == .head {
                easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue)
            }
        }
        transfer.configureHeaders(on: easy, expectsBody: hasBody)

        // Protocol
        switch options.httpVersion {
        case .automatic:
            easy.set(CURLOPT_HTTP_VERSION, ccurl_http_version_2tls)
        case .http1_1:
            easy.set(CURLOPT_HTTP_VERSION, ccurl_http_version_1_1)
        case .http2:
            let cleartext = request.scheme?.lowercased() == "http"
            easy.set(CURLOPT_HTTP_VERSION, cleartext ? ccurl_http_version_2_prior_knowledge : ccurl_http_version_2_0)
            if cleartext, ccurl_version_number() < 0x08_00_00 {
                // libcurl before 8.0 fails the second request on a reused prior-knowledge
                // connection with "Error in the HTTP2 framing layer" (curl issue #10634):
                // give each such request its own connection.
                easy.set(CURLOPT_FRESH_CONNECT, 1)
                easy.set(CURLOPT_FORBID_REUSE, 1)
            }
        }
        easy.set(CURLOPT_PIPEWAIT, options.multiplexing ? 1 : 0)
        if options.automaticDecompression { easy.set(CURLOPT_ACCEPT_ENCODING, "") }
        easy.set(CURLOPT_BUFFERSIZE, options.receiveBufferSize)
        easy.set(CURLOPT_UPLOAD_BUFFERSIZE, options.sendBufferSize)
        easy.set(CURLOPT_TCP_NODELAY, 1)
        easy.set(CURLOPT_TCP_KEEPALIVE, 1)

        // Timeouts
        let timeouts = transfer.context.timeouts
        if let connect = timeouts.connect { easy.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(connect)) }
        if let total = timeouts.request { easy.set(CURLOPT_TIMEOUT_MS, milliseconds(total)) }
        if let lowSpeed = timeouts.lowSpeedTime {
            easy.set(CURLOPT_LOW_SPEED_TIME, max(1, Int((milliseconds(lowSpeed) + 999) / 1000)))
            easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, timeouts.lowSpeedLimit))
        }

        // Routing
        if let proxy = options.proxy {
            easy.set(CURLOPT_PROXY, proxy)
        } else {
            easy.set(CURLOPT_PROXY, "")   // ignore http_proxy & co. unless configured
        }
        if let socket = options.unixSocketPath { easy.set(CURLOPT_UNIX_SOCKET_PATH, socket) }

        // TLS
        if let caFile = options.certificateAuthorityFile { easy.set(CURLOPT_CAINFO, caFile) }
        if !options.verifiesPeer { easy.set(CURLOPT_SSL_VERIFYPEER, 0) }
        if !options.verifiesHost { easy.set(CURLOPT_SSL_VERIFYHOST, 0) }

        if options.verbose { easy.set(CURLOPT_VERBOSE, 1) }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
