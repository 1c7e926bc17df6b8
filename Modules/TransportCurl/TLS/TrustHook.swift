internal import CCurl
import CourierCore
import FoundationEssentials

/// Runs a request's ``CourierCore/ServerTrustEvaluator`` inside the TLS handshake of each new connection.
///
/// How: the request's easy handle carries `CURLOPT_SSL_CTX_FUNCTION` with this hook as its data. libcurl
/// calls it with the fresh OpenSSL `SSL_CTX` before the handshake; the hook installs OpenSSL's certificate
/// verification callback on that context (replacing OpenSSL's own chain building for this connection),
/// keeps itself alive as the context's ex-data (released when OpenSSL frees the context) and turns
/// renegotiation off. During the handshake OpenSSL calls the callback with the peer's chain; the hook hands
/// it (DER, leaf first) and the host to the evaluator. A throw makes the callback fail, OpenSSL aborts the
/// handshake with an alert, and the client never sends its Finished message, let alone a byte of the
/// HTTP request. The error the evaluator threw is kept here and becomes the transfer's error.
///
/// Behind an HTTPS proxy libcurl calls the context callback for the proxy's handshake too. When the transfer surely goes
/// through the proxy, the hook leaves the handshakes that come before the proxy's 2xx answer to its `CONNECT` to
/// libcurl's own check of the proxy, and judges the server's (``ProxyHandshake`` says how they are told apart); until
/// the evaluator has accepted a server's chain after such a handshake, no request is sent (``mayUseConnection``).
///
/// Thread: every call (the context callback, the verify callback, the release) happens on the transport's
/// loop thread, inside `curl_multi_perform` or `curl_multi_cleanup`; so does reading ``rejection``.
final class TrustHook {
    let evaluator: any ServerTrustEvaluator
    let host: String
    let url: String
    /// Whether the transfer surely goes through an HTTPS proxy, whose own handshake libcurl checks
    /// (``ProxyHandshake/surelyThroughHTTPSProxy(host:proxy:bypassHosts:unixSocketPath:)``).
    let throughHTTPSProxy: Bool
    /// Why the evaluator refused the server, or why the hook could not run. Loop thread only.
    private(set) var rejection: (any Error)?
    /// A proxy's handshake was left to libcurl, and the evaluator has not accepted a server's chain since. Loop thread
    /// only.
    private var awaitsServerHandshake = false
    /// The transfer's easy handle, from the proxy's handshake until the server's is accepted: its
    /// `CURLOPT_FORBID_REUSE` is on meanwhile. Loop thread only.
    private var easyAwaitingServer: UnsafeMutableRawPointer?
    /// What `CURLOPT_FORBID_REUSE` goes back to once the server's handshake is accepted: on for an evaluator the loop
    /// cannot recognize again (``CurlOptions/configureTrust(_:hook:options:loop:)``). Loop thread only.
    var keepsNoConnection = false

    init(evaluator: any ServerTrustEvaluator, host: String, url: String, throughHTTPSProxy: Bool = false) {
        self.evaluator = evaluator
        self.host = host
        self.url = url
        self.throughHTTPSProxy = throughHTTPSProxy
    }

    /// Whether a request may be sent on the connection libcurl has just given the transfer (its prerequest callback).
    /// Not when the hook let a proxy's handshake pass and then judged no server's: libcurl went to the server some other
    /// way than through the proxy's tunnel (a rule of its own for bypassing the proxy), and the evaluator never saw the
    /// server's certificate. Fails closed then, with ``rejection`` saying why; the connection is not kept
    /// (`CURLOPT_FORBID_REUSE`, on since the proxy's handshake).
    func mayUseConnection() -> Bool {
        guard awaitsServerHandshake else { return true }
        rejection = TransportError(.tlsFailure, message: "the connection reached the server without a TLS handshake the trust evaluator judged after the HTTPS proxy's own (libcurl did not go through the proxy's tunnel); refusing to send")
        return false
    }

    /// The host of an `authority` (`host`, `host:port`, `[v6]`, `[v6]:port`), as a certificate names it.
    static func host(ofAuthority authority: String) -> String {
        AuthorityParts(authority).map { String($0.host) } ?? authority
    }

    /// The callback libcurl calls with each new connection's `SSL_CTX`.
    static let contextCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> CURLcode = {
        easy, context, data in
        guard let data else { return CURLE_SSL_CONNECT_ERROR }
        let hook = Unmanaged<TrustHook>.fromOpaque(data).takeUnretainedValue()
        if let easy, hook.isProxysHandshake(easy) {
            hook.awaitsServerHandshake = true
            // Not kept, however the transfer ends, until the evaluator has accepted the server: a connection libcurl
            // kept after a transfer that ended between the two handshakes would be given to the next call with no
            // handshake to judge.
            hook.easyAwaitingServer = easy
            _ = ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, 1)
            return CURLE_OK
        }
        return hook.install(on: context) ? CURLE_OK : CURLE_SSL_CONNECT_ERROR
    }

    /// Whether the handshake about to start is the HTTPS proxy's own. Any doubt (no proxy for sure, an answer libcurl
    /// cannot give) makes it the server's, which the evaluator judges.
    private func isProxysHandshake(_ easy: UnsafeMutableRawPointer) -> Bool {
        guard throughHTTPSProxy else { return false }
        var code = 0
        guard ccurl_easy_getinfo_long(easy, CURLINFO_HTTP_CONNECTCODE, &code) == CURLE_OK else { return false }
        return ProxyHandshake.isProxys(connectCode: code, awaitingServer: awaitsServerHandshake)
    }

    private func install(on context: UnsafeMutableRawPointer?) -> Bool {
        guard let context, let openSSL = OpenSSLRuntime.shared else {
            rejection = TransportError(.tlsFailure, message: "cannot run the trust evaluator: libcurl's TLS library is not a usable OpenSSL; refusing to connect")
            return false
        }
        let sslContext = OpaquePointer(context)
        let retained = Unmanaged.passRetained(self).toOpaque()
        guard openSSL.setContextExData(sslContext, openSSL.hookIndex, retained) == 1 else {
            Unmanaged<TrustHook>.fromOpaque(retained).release()
            rejection = TransportError(.tlsFailure, message: "cannot attach the trust evaluator to the TLS context; refusing to connect")
            return false
        }
        openSSL.setCertVerifyCallback(sslContext, { storeContext, argument in
            TrustHook.verify(storeContext, argument)
        }, retained)
        _ = openSSL.setContextOptions(sslContext, OpenSSLRuntime.noRenegotiation)
        return true
    }

    /// OpenSSL's certificate verification callback: 1 trusts the peer, 0 aborts the handshake.
    private static func verify(_ storeContext: OpaquePointer?, _ argument: UnsafeMutableRawPointer?) -> Int32 {
        guard let storeContext, let argument, let openSSL = OpenSSLRuntime.shared else { return 0 }
        let hook = Unmanaged<TrustHook>.fromOpaque(argument).takeUnretainedValue()
        if hook.evaluate(openSSL.peerChain(storeContext)) {
            openSSL.storeContextSetError(storeContext, OpenSSLRuntime.verified)
            return 1
        }
        openSSL.storeContextSetError(storeContext, OpenSSLRuntime.applicationRefused)
        return 0
    }

    private func evaluate(_ chain: [[UInt8]]) -> Bool {
        let trust = ServerTrust(host: host, certificateChain: chain)
        let failingURL = URL(string: url)
        guard !host.isEmpty else {
            // Fail closed: with no name to check, any chain valid under the anchors would pass.
            rejection = TrustError(host: host, reason: "the request has no host name to check the certificate against", serverTrust: trust, failingURL: failingURL)
            return false
        }
        guard !chain.isEmpty else {
            rejection = TrustError(host: host, reason: "the server presented no certificate", serverTrust: trust, failingURL: failingURL)
            return false
        }
        do {
            try evaluator.evaluate(trust)
            rejection = nil
            awaitsServerHandshake = false
            if let easy = easyAwaitingServer {
                easyAwaitingServer = nil
                _ = ccurl_easy_setopt_long(easy, CURLOPT_FORBID_REUSE, keepsNoConnection ? 1 : 0)
            }
            return true
        } catch var error as TrustError {
            error.serverTrust = error.serverTrust ?? trust
            error.failingURL = error.failingURL ?? failingURL
            rejection = error
        } catch {
            rejection = error
        }
        return false
    }

    /// Balances the retain of ``install(on:)`` when OpenSSL frees the context.
    static func releaseFromContext(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<TrustHook>.fromOpaque(pointer).release()
    }
}
