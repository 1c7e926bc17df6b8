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
    /// found dead, libcurl closes it and sends the request again on a new connection (`Curl_retry_request`). A new
    /// connection is never in the table: its ends are matched only once an exchange on it has ended.
    ///
    /// Returns whether the connection is an HTTP/1 connection kept from an earlier exchange (in the table), which a
    /// request whose send then meets its close may be sent again for (``ConnectionLossResend``).
    @discardableResult
    func connectionReady(endpoints: ConnectionSockets.Endpoints) -> Bool {
        connectionGrants &+= 1
        if connectionSockets.isCondemned(endpoints) {
            // Given back to libcurl's pool before the exchange that condemned it was reported ended (the same pass):
            // found by its ends among the open sockets, since the table matches a socket only when that report comes.
            shutDownConnection(with: endpoints)
            return false
        }
        guard let socket = connectionSockets.socketToCheck(reusing: endpoints) else { return false }
        guard Self.hasWaitingInput(socket) else { return true }
        Self.discard(socket)
        connectionSockets.retire(socket)
        // A server that sent one connection bytes nobody asked for may have done it to others (every HEAD answered
        // with a body): each would cost this request one of libcurl's five retries, and a sixth failed it
        // (`.sendFailed`, seen with eight). The idle ones with bytes waiting go now, before libcurl offers them.
        let held = Set(active.values.lazy.compactMap(\.connectionEnds))
        for idle in connectionSockets.idleSockets(notHeldBy: held) where Self.hasWaitingInput(idle) {
            Self.discard(idle)
            connectionSockets.retire(idle)
        }
        return true
    }

    /// Shuts down the open connection with `endpoints`, found by its ends among the sockets libcurl opened: nothing more
    /// goes out on it, and libcurl drops it. No connection found, nothing done.
    func shutDownConnection(with endpoints: ConnectionSockets.Endpoints) {
        guard let socket = connectionSockets.openSockets.first(where: { Self.socket($0, has: endpoints) }) else { return }
        Self.discard(socket)
        connectionSockets.retire(socket)
    }

    /// A head on the connection with `endpoints` framed its body both by a transfer coding and by a length, or by a
    /// transfer coding in HTTP/1.0 (``ContentLengthCheck/Reading/forbidsReuse(version:)``): the connection must
    /// carry no other exchange. Until that exchange ends, a request given the connection is moved off it
    /// (``connectionReady(endpoints:)``).
    func condemnConnection(on endpoints: ConnectionSockets.Endpoints) {
        connectionSockets.condemn(endpoints)
    }

    /// The exchange that condemned the connection with `endpoints` ended, after ``exchangeEnded(on:version:easy:)``:
    /// when it ended well over HTTP/1 and libcurl kept the connection, its socket (matched by the table, with its
    /// guards) is shut down, so libcurl never offers it again. Otherwise libcurl closed it, or it was never one.
    func retireCondemnedConnection(on endpoints: ConnectionSockets.Endpoints, endedWell: Bool) {
        defer { connectionSockets.release(endpoints) }
        guard endedWell, let socket = connectionSockets.socketToCheck(reusing: endpoints) else { return }
        Self.discard(socket)
        connectionSockets.retire(socket)
    }

    /// An exchange on the connection with `endpoints` ended in HTTP `version` (`CURLINFO_HTTP_VERSION`); `easy` is its
    /// handle, not yet out of the multi handle.
    func exchangeEnded(on endpoints: ConnectionSockets.Endpoints, version: Int, easy: CurlEasy) {
        // CURL_HTTP_VERSION_1_0 and _1_1; an HTTP/2 connection has other streams' frames waiting as a matter of course.
        connectionSockets.exchangeEnded(on: endpoints, http1: version == 1 || version == 2) {
            Self.keptSocket(of: easy, endpoints: endpoints)
        }
    }

    /// Shuts `socket` down and reads away what waits on it (up to 1 MiB), so that libcurl finds the connection
    /// closed (its check peeks for a byte, and would find the stray ones) and drops it without sending on it. One
    /// libcurl has already chosen fails its send instead, and libcurl moves the request.
    static func discard(_ socket: Int32) {
        _ = shutdown(socket, Int32(SHUT_RDWR))
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16_384) { buffer in
            var read = 0
            while read < 1 << 20 {
                let count = recv(socket, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
                guard count > 0 else { break }
                read += count
            }
        }
    }

    /// Whether a socket has bytes to read (or its peer's end of the stream, or an error): an idle connection has none.
    private static func hasWaitingInput(_ socket: Int32) -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// The socket of the connection `easy` kept for reuse, if it is the one with `endpoints`' ports:
    /// `CURLINFO_ACTIVESOCKET` names the handle's last connection kept, which after a closed one may be an older one.
    private static func keptSocket(of easy: CurlEasy, endpoints: ConnectionSockets.Endpoints) -> Int32? {
        var socket: curl_socket_t = -1
        guard ccurl_easy_getinfo_socket(easy.raw, CURLINFO_ACTIVESOCKET, &socket) == CURLE_OK, socket >= 0 else { return nil }
        return Self.socket(socket, has: endpoints) ? socket : nil
    }

    /// Whether `socket` is the connection with `endpoints`: its local port, its peer's port and its peer's address.
    /// Linux may give one local port to connections to the same port of different addresses, so the ports alone
    /// could name another connection: one found idle would be shut down in the condemned one's place, and the
    /// condemned one reused. Ends that keep a long IPv6 address only as a hash (``ConnectionSockets/Endpoints``) are
    /// matched by their ports.
    static func socket(_ socket: Int32, has endpoints: ConnectionSockets.Endpoints) -> Bool {
        guard port(of: socket, peer: false) == endpoints.localPort,
              let (peer, port) = PeerAddress.peer(of: socket), port == endpoints.remotePort
        else { return false }
        return endpoints.peerAddress.map { $0 == peer } ?? true
    }

    /// The local or the peer's port of a TCP socket, or nil.
    static func port(of socket: Int32, peer: Bool) -> UInt16? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { peer ? getpeername(socket, $0, &length) : getsockname(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        switch Int32(address.ss_family) {
        case AF_INET: return UInt16(bigEndian: withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in.self).sin_port })
        case AF_INET6: return UInt16(bigEndian: withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in6.self).sin6_port })
        default: return nil
        }
    }
}

extension ConnectionSockets.Endpoints {
    /// The ends libcurl's prerequest callback names: the remote address as text, the ports as numbers; nil for a
    /// connection without ports (a Unix socket) or without an address.
    init?(remoteAddress: UnsafePointer<CChar>?, remotePort: Int32, localPort: Int32) {
        guard let remoteAddress, (1...65535).contains(localPort), (1...65535).contains(remotePort) else { return nil }
        // The text as it is, not parsed: the table only compares ends libcurl named, so the same address is always
        // the same text. An IPv4 address (at most 15 bytes) and a short IPv6 one fit whole.
        let length = strlen(remoteAddress)
        guard length > 0 else { return nil }
        var high: UInt64 = 0, low: UInt64 = 0
        if length <= 16 {
            withUnsafeMutableBytes(of: &high) { _ = memcpy($0.baseAddress!, remoteAddress, min(length, 8)) }
            if length > 8 { withUnsafeMutableBytes(of: &low) { _ = memcpy($0.baseAddress!, remoteAddress + 8, length - 8) } }
        } else {
            // FNV-1a of the text, with its length in the other word.
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for index in 0..<length { hash = (hash ^ UInt64(UInt8(bitPattern: remoteAddress[index]))) &* 0x0000_0100_0000_01b3 }
            high = hash
            low = UInt64(length)
        }
        self.init(localPort: UInt16(localPort), remotePort: UInt16(remotePort), remoteAddressHigh: high, remoteAddressLow: low)
    }
}
