internal import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An idle HTTP/1 connection with bytes waiting is not reused (``ConnectionSockets`` says why). Loop thread only:
/// libcurl calls the callbacks behind these from inside `curl_multi_perform`.
extension CurlMultiLoop {
    /// A request has its connection (libcurl's prerequest callback), before a byte of it is sent. A reused HTTP/1
    /// connection with bytes waiting is shut down: libcurl's send then fails on it and, as for any reused connection
    /// found dead, libcurl closes it and sends the request again on a new connection (`Curl_retry_request`).
    func connectionReady(endpoints: ConnectionSockets.Endpoints, reused: Bool) {
        guard reused, let socket = connectionSockets.socketToCheck(reusing: endpoints), Self.hasWaitingInput(socket) else { return }
        _ = shutdown(socket, Int32(SHUT_RDWR))
        connectionSockets.retire(socket)
    }

    /// An exchange on the connection with `endpoints` ended; `easy` is its handle, not yet out of the multi handle.
    func exchangeEnded(on endpoints: ConnectionSockets.Endpoints, easy: CurlEasy) {
        // CURL_HTTP_VERSION_1_0 and _1_1; an HTTP/2 connection has other streams' frames waiting as a matter of course.
        let version = easy.info(CURLINFO_HTTP_VERSION) ?? 0
        connectionSockets.exchangeEnded(on: endpoints, http1: version == 1 || version == 2) {
            Self.keptSocket(of: easy, localPort: endpoints.localPort)
        }
    }

    /// Whether a socket has bytes to read (or its peer's end of the stream, or an error): an idle connection has none.
    private static func hasWaitingInput(_ socket: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// The socket of the connection `easy` kept for reuse, if it is the one whose local port is `localPort`:
    /// `CURLINFO_ACTIVESOCKET` names the handle's last connection kept, which after a closed one may be an older one.
    private static func keptSocket(of easy: CurlEasy, localPort: UInt16) -> Int32? {
        var socket: curl_socket_t = -1
        guard ccurl_easy_getinfo_socket(easy.raw, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else { return nil }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        let port: UInt16
        switch Int32(address.ss_family) {
        case AF_INET: port = withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in.self).sin_port }
        case AF_INET6: port = withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in6.self).sin6_port }
        default: return nil
        }
        return UInt16(bigEndian: port) == localPort ? socket : nil
    }
}

extension ConnectionSockets.Endpoints {
    /// The ends libcurl's prerequest callback names: the remote address as text, the ports as numbers; nil for a
    /// connection without ports (a Unix socket) or an address that is not IPv4 or IPv6.
    init?(remoteAddress: UnsafePointer<CChar>?, remotePort: Int32, localPort: Int32) {
        guard let remoteAddress, (1...65535).contains(localPort), (1...65535).contains(remotePort) else { return nil }
        var bytes: (UInt64, UInt64) = (0, 0)
        let family = withUnsafeMutableBytes(of: &bytes) { raw -> UInt8? in
            if inet_pton(AF_INET, remoteAddress, raw.baseAddress) == 1 { return 4 }
            if inet_pton(AF_INET6, remoteAddress, raw.baseAddress) == 1 { return 6 }
            return nil
        }
        guard let family else { return nil }
        self.init(localPort: UInt16(localPort), remotePort: UInt16(remotePort), family: family,
                  remoteAddressHigh: bytes.0, remoteAddressLow: bytes.1)
    }
}
