#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Easy handles that must outlive what their connection remembers of them. Loop thread only.
///
/// An HTTP/2 request waits in nghttp2's queue, its stream not yet opened, while the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS` allows no other stream on the connection (libcurl 7.88 gives an idle connection
/// whose limit is 0 to a request). When that transfer ends first (a timeout, a cancellation), libcurl resets the
/// stream and means to forget the handle, but nghttp2 keeps the handle's address with the queued request, and passes
/// it to libcurl's stream-close callback once the server raises the limit: libcurl then writes to the handle. Such a
/// transfer's handle was freed (it counts as one that may have retried: ``CurlTransfer/handleMayHaveRetried``), so
/// that was a use after free: Valgrind shows libcurl reading the freed handle from `nghttp2_session_send`, and the
/// call then driving the session failed "Failed sending data to the peer", or, with the memory given to a new
/// handle, "HTTP/2 stream N was not closed cleanly: STREAM_CLOSED". libcurl 8.6 checks the handle first (curl pull
/// request #12562). A handle that is kept, idle, takes the callback without harm to any transfer (libcurl only
/// marks the handle's old request closed, and counts it on the connection as one to drain).
///
/// Nothing libcurl reports tells a queued request from a sent one, so every transfer that was given a connection,
/// ended before its head, not cleanly, and may have spoken HTTP/2 keeps its handle out of the pool
/// (``ParkedHandles``) until the connection is done with it: libcurl closed the connection (nghttp2 then deletes
/// its queue without calling back), or a request given the connection later got its head (nghttp2 opens streams in
/// the order their requests came). A busy connection that answers frees its kept handles at once; one that keeps
/// ``parkedHandleLimit`` of them has answered no request given it since the first, and is shut down, so that new
/// requests get another connection and the handles go with it (its calls in flight fail, typed as a connection cut
/// short is, or libcurl sends them again). A request libcurl moved to another connection is kept for the one it
/// left as well. A handle whose connection cannot be told (a Unix socket's, or one whose socket has its ports but
/// another or no peer) is kept until the loop ends.
extension CurlMultiLoop {
    /// Handles a connection may keep before the loop shuts it down.
    static let parkedHandleLimit = 64

    /// `handle` of `transfer`, which has left the multi handle: pooled or freed, or kept while its connection may
    /// still hold its address (``CurlTransfer/mayLeaveQueuedRequest``).
    func release(_ handle: PooledEasy?, of transfer: CurlTransfer) {
        guard let handle else { return }
        // The usual end: answered, on one connection.
        guard transfer.mayLeaveQueuedRequest || !transfer.earlierConnectionEnds.isEmpty, transfer.maySpeakHTTP2 else {
            recycle(handle, retried: transfer.handleMayHaveRetried)
            return
        }
        // The connections that may hold the handle: the last one, if the request ended there before its head, and
        // any it was moved from (libcurl sends a request whose stream a GOAWAY refused again on a new connection;
        // it may have waited in the queue of the one it left, which may go on serving other streams).
        var holders = transfer.earlierConnectionEnds
        if transfer.mayLeaveQueuedRequest {
            guard let ends = transfer.connectionEnds else {
                parkedHandles.strand(handle)  // a Unix socket's connection: nothing names it
                return
            }
            holders.append(ends)
        }
        var open: [(socket: Int32, ends: ConnectionSockets.Endpoints)] = []
        for ends in holders {
            switch connection(ends) {
            case .closed:
                continue  // libcurl closed it: nghttp2's session, and its queue, went with it
            case .uncertain:
                parkedHandles.strand(handle)
                return
            case .open(let socket):
                if !open.contains(where: { $0.socket == socket }) { open.append((socket, ends)) }
            }
        }
        guard !open.isEmpty else {
            recycle(handle, retried: transfer.handleMayHaveRetried)
            return
        }
        guard parkedHandles.park(handle, grants: connectionGrants, on: open) >= Self.parkedHandleLimit else { return }
        for (socket, _) in open {
            Self.discard(socket)
            connectionSockets.retire(socket)
        }
    }

    /// A request the `grant`-th given the connection with `ends` got its head: the handles that connection kept
    /// before are freed once the libcurl call running now has returned. Inside libcurl's header callback.
    func requestAnswered(on ends: ConnectionSockets.Endpoints, grant: UInt64) {
        unparkedHandles.append(contentsOf: parkedHandles.answered(on: ends, grant: grant))
    }

    /// libcurl closed `socket` (its close callback, inside a libcurl call): the handles kept for its connection are
    /// freed once that call has returned (``freeUnparkedHandles()``).
    func socketClosed(_ socket: Int32) {
        connectionSockets.closed(socket)
        if !parkedHandles.isEmpty { unparkedHandles.append(contentsOf: parkedHandles.closed(socket)) }
    }

    /// Frees the handles whose connection let go of them. Outside every libcurl call.
    func freeUnparkedHandles() {
        for handle in unparkedHandles { handle.cleanup() }
        unparkedHandles.removeAll()
    }

    /// Whether the connection with `ends` is still open, and its socket: one with its ports and its peer address
    /// (Linux lets two connections to different addresses share a local port). Uncertain when a socket has the
    /// local port but its peer cannot be read (a connection reset and not yet closed by libcurl has none), or has
    /// both ports and another peer, or `ends` keep the address as a hash (a long IPv6 one). A search of every open
    /// socket (one or two system calls each), made only for a transfer that ended before its head or was moved to
    /// another connection.
    private func connection(_ ends: ConnectionSockets.Endpoints) -> ConnectionState {
        let expected = ends.peerAddress
        var uncertain = false
        for socket in connectionSockets.openSockets where Self.port(of: socket, peer: false) == ends.localPort {
            // One `getpeername` for the peer's port and address; a reset socket has neither.
            guard let (peer, port) = PeerAddress.peer(of: socket) else {
                uncertain = true
                continue
            }
            guard port == ends.remotePort else { continue }
            if let expected, peer == expected { return .open(socket) }
            uncertain = true
        }
        return uncertain ? .uncertain : .closed
    }

    /// What the loop knows of a connection a kept handle was given.
    private enum ConnectionState {
        case open(Int32)
        case uncertain
        case closed
    }
}

extension ConnectionSockets.Endpoints {
    /// The remote address, when the ends keep its text whole (up to 16 bytes: every IPv4 address, short IPv6 ones).
    /// A longer text is kept as a hash with its length (17 to 45) in the low word, whose lowest byte is otherwise 0
    /// or the text's ninth character, which in an address is `.`, `:`, a digit or a letter (0x2E and up).
    var peerAddress: PeerAddress? {
        if remoteAddressLow != 0, remoteAddressLow & 0xFF < 0x2E { return nil }
        var text = (remoteAddressHigh, remoteAddressLow, UInt64(0))  // NUL after at most 16 bytes
        return withUnsafeBytes(of: &text) { PeerAddress(text: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
    }
}

/// A peer's IP address as bytes, from libcurl's text or from a connected socket, to compare the two.
struct PeerAddress: Equatable {
    private var family: Int32
    private var bytes: (UInt64, UInt64)

    static func == (lhs: PeerAddress, rhs: PeerAddress) -> Bool {
        lhs.family == rhs.family && lhs.bytes == rhs.bytes
    }

    /// An IPv4 or IPv6 address in text (`inet_pton`'s forms), or nil.
    init?(text: UnsafePointer<CChar>) {
        var raw = (UInt64(0), UInt64(0))
        if withUnsafeMutableBytes(of: &raw, { inet_pton(AF_INET, text, $0.baseAddress) }) == 1 {
            (family, bytes) = (AF_INET, raw)
        } else if withUnsafeMutableBytes(of: &raw, { inet_pton(AF_INET6, text, $0.baseAddress) }) == 1 {
            (family, bytes) = (AF_INET6, raw)
        } else {
            return nil
        }
    }

    private init(family: Int32, bytes: (UInt64, UInt64)) {
        self.family = family
        self.bytes = bytes
    }

    /// The address and port `socket` is connected to, or nil (not a TCP socket, or not connected any more).
    static func peer(of socket: Int32) -> (address: PeerAddress, port: UInt16)? {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(socket, $0, &length) }
        }
        guard named == 0 else { return nil }
        var raw = (UInt64(0), UInt64(0))
        switch Int32(address.ss_family) {
        case AF_INET:
            let peer = withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in.self) }
            withUnsafeMutableBytes(of: &raw) { $0.storeBytes(of: peer.sin_addr, as: in_addr.self) }
            return (PeerAddress(family: AF_INET, bytes: raw), UInt16(bigEndian: peer.sin_port))
        case AF_INET6:
            let peer = withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in6.self) }
            withUnsafeMutableBytes(of: &raw) { $0.storeBytes(of: peer.sin6_addr, as: in6_addr.self) }
            return (PeerAddress(family: AF_INET6, bytes: raw), UInt16(bigEndian: peer.sin6_port))
        default:
            return nil
        }
    }
}
