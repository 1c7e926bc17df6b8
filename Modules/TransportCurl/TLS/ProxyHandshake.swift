/// Which TLS handshakes of a transfer are its HTTPS proxy's own, so that a trust evaluator judges the server's alone.
///
/// Why: libcurl 7.88 calls `CURLOPT_SSL_CTX_FUNCTION` before every handshake of a transfer, and behind an HTTPS proxy
/// there are two per connection: the proxy's, then the server's inside the tunnel. Nothing in the callback's arguments
/// says which; an evaluator handed the proxy's chain judged the wrong certificate, so a trust evaluator through an
/// HTTPS proxy used to be refused outright. The order tells them apart: the proxy's handshake comes before its answer
/// to the tunnel's `CONNECT`, the server's only after a 2xx answer, and `CURLINFO_HTTP_CONNECTCODE` (0 when each
/// transfer starts) holds that answer. The proxy's certificate is then libcurl's to check, as for any HTTPS proxy
/// (`proxyCertificateAuthorityFile`, host name included).
///
/// That reading holds only for a transfer that surely goes through the proxy: one libcurl sends straight to the server
/// makes a single handshake, the server's, before any `CONNECT`. So a transfer that might go straight there judges
/// every handshake, the proxy's too if it did not (against the server's name, which normally refuses it), and
/// ``TrustHook`` refuses to send a request on a connection whose server handshake it did not judge after it let a
/// proxy's pass.
enum ProxyHandshake {
    /// Whether libcurl surely sends a request for `host` through an HTTPS proxy: `proxy` is an `https` URL, no Unix
    /// socket replaces the network (libcurl then uses no proxy), and no entry of `bypassHosts` might name `host`.
    ///
    /// "Might" is looser than libcurl's rules for `CURLOPT_NOPROXY` (a name matches itself and the names under it, an
    /// address itself or its prefix, `*` every host), never stricter: a host that an entry ends with in any way, an
    /// address (in any of the forms libcurl reads as one) beside any entry that could be one, and a name or entry in an
    /// encoding libcurl might convert (non-ASCII, `xn--`, percent-escapes) all count as bypassed. A host counted
    /// bypassed that libcurl sends through the proxy only has its evaluator judge the proxy's handshake as well.
    static func surelyThroughHTTPSProxy(host: String, proxy: String?, bypassHosts: [String], unixSocketPath: String?) -> Bool {
        guard unixSocketPath == nil, let proxy, isHTTPSScheme(of: proxy) else { return false }
        return !mightBypass(host: host, entries: bypassHosts)
    }

    /// Whether a handshake that starts when the tunnel's `CONNECT` has had the answer `connectCode` (0: none yet) is
    /// the proxy's own. The server's comes only after a 2xx answer, and only after a proxy's handshake that no server's
    /// has followed yet (`awaitingServer`): libcurl keeps the answer of a transfer's earlier connection when it sends the
    /// request again on a new one within the transfer (a refused HTTP/2 stream, a kept connection found dead), so a 2xx
    /// alone could make the new connection's proxy handshake pass for the server's.
    static func isProxys(connectCode: Int, awaitingServer: Bool) -> Bool {
        !(200..<300).contains(connectCode) || !awaitingServer
    }

    /// Whether `entries` might make libcurl bypass the proxy for `host` (see ``surelyThroughHTTPSProxy``).
    static func mightBypass(host: String, entries: [String]) -> Bool {
        guard !entries.isEmpty else { return false }
        let name = trimmedDots(host.lowercased(), leading: false)
        if mayBeConverted(name) { return true }
        let isAddress = looksLikeAddress(name)
        for entry in entries {
            let lowered = entry.lowercased()
            if lowered == "*" || mayBeConverted(lowered) { return true }
            let token = trimmedDots(lowered, leading: true)
            if token.isEmpty || name.hasSuffix(token) { return true }
            // libcurl compares an address with an address entry by its prefix (`10.0.0.0/8`), which a suffix does not
            // show: any entry that could be an address counts.
            if isAddress, looksLikeAddress(token) || token.contains("/") { return true }
        }
        return false
    }

    /// Whether a proxy URL's scheme is `https`, in any case, as libcurl reads it.
    static func isHTTPSScheme(of proxy: String) -> Bool {
        proxy.utf8.count >= 6 && proxy.prefix(6).lowercased() == "https:"
    }

    /// A name libcurl might compare in another form than this one: an internationalized name (libcurl may convert it
    /// to its ASCII form, or it may be that form already) or one with percent-escapes.
    private static func mayBeConverted(_ text: String) -> Bool {
        text.utf8.contains { $0 >= 0x80 || $0 == UInt8(ascii: "%") } || text.contains("xn--")
    }

    /// An IPv6 literal (a colon or a bracket anywhere), or an IPv4 address in any form libcurl's URL parser reads as
    /// one and rewrites as `127.0.0.1` before it looks at the bypass list: one to four parts split by dots, each
    /// decimal, octal (a leading 0) or hexadecimal (`0x`), as in `0x7f000001`, `0177.1`, `127.1`. Looser than libcurl
    /// where it is unsure (a part of any length, `08`, a bare `0x`), never stricter; a name of hexadecimal letters
    /// (`cafe.be`) is no address, as libcurl sends it through the proxy.
    private static func looksLikeAddress(_ text: String) -> Bool {
        if text.utf8.contains(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "[") }) { return true }
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return false }
        return parts.allSatisfy { part in
            if part.count >= 2, part.first == UInt8(ascii: "0"), part.dropFirst().first == UInt8(ascii: "x") {
                return part.dropFirst(2).allSatisfy { isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
            }
            return !part.isEmpty && part.allSatisfy(isDigit)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// `text` without a trailing dot, and without a leading one when `leading`.
    private static func trimmedDots(_ text: String, leading: Bool) -> String {
        var trimmed = Substring(text)
        if leading, trimmed.first == "." { trimmed = trimmed.dropFirst() }
        if trimmed.last == "." { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }
}
