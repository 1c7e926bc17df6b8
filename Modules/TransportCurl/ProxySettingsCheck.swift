internal import CCurl
import CourierCore

/// Checks a transport's proxy settings when it starts. A proxy URL libcurl cannot use failed every call as a
/// connection failure (`.nameResolution` for one it could not parse, `.cannotConnect` for a scheme it does not
/// speak), which a retry policy sent again, and which names the call rather than the setting; now the transport
/// does not start, and says which setting is wrong.
enum ProxySettingsCheck {
    /// The schemes libcurl 7.88 speaks to a proxy.
    static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// `CURLU_NON_SUPPORT_SCHEME | CURLU_GUESS_SCHEME`, the flags libcurl parses `CURLOPT_PROXY` with (its macros are
    /// shifts, which Swift does not import): any scheme is parsed, and none is taken for http.
    private static let proxyParsing: UInt32 = (1 << 3) | (1 << 9)

    static func check(_ configuration: CurlTransport.Configuration) throws(TransportError) {
        if let proxy = configuration.proxy, !proxy.isEmpty {
            try checkProxy(proxy)
        }
        for host in configuration.proxyBypassHosts
        where host.isEmpty || host.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 <= 0x20 || $0 == 0x7F }) {
            throw TransportError(.unsupported, message: "a proxy bypass host must be one host, without commas, spaces or control characters: \(String(reflecting: host))")
        }
        if configuration.proxyBypassHosts.count > 1, configuration.proxyBypassHosts.contains("*") {
            // libcurl takes `*` for every host only when it is the whole list; beside other hosts it is a name that
            // matches none, and every other host would go through the proxy.
            throw TransportError(.unsupported, message: "\"*\" bypasses the proxy for every host only alone: give [\"*\"], or the hosts")
        }
    }

    /// Parses `proxy` as libcurl will, with its own URL parser. The messages never repeat the URL, which may hold
    /// the proxy's password.
    static func checkProxy(_ proxy: String) throws(TransportError) {
        guard let url = curl_url() else {
            throw TransportError(.other, message: "libcurl could not allocate a URL handle to check the proxy")
        }
        defer { curl_url_cleanup(url) }
        let parsed = curl_url_set(url, CURLUPART_URL, proxy, proxyParsing)
        guard parsed == CURLUE_OK else {
            throw TransportError(
                .unsupported,
                message: "the proxy URL is not one libcurl can use: \(String(cString: curl_url_strerror(parsed)))",
                underlyingCode: Int(parsed.rawValue)
            )
        }
        var schemePointer: UnsafeMutablePointer<CChar>?
        defer { curl_free(schemePointer) }
        guard curl_url_get(url, CURLUPART_SCHEME, &schemePointer, 0) == CURLUE_OK, let schemePointer else {
            throw TransportError(.unsupported, message: "the proxy URL names no scheme libcurl can read")
        }
        let scheme = String(cString: schemePointer).lowercased()
        guard schemes.contains(scheme) else {
            throw TransportError(
                .unsupported,
                message: "the proxy URL's scheme \(String(reflecting: scheme)) is not one libcurl speaks to a proxy (\(schemes.sorted().joined(separator: ", ")))"
            )
        }
    }
}
