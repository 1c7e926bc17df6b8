/// The sockets of a transport's connections, and which of them are HTTP/1 connections whose last exchange
/// ended, so that one holding bytes no request asked for is not reused.
///
/// Why: an HTTP/1 connection carries one exchange at a time, so bytes that arrive on it while it waits in
/// libcurl's pool (a body sent to a HEAD, a 204 or a 304, more bytes than `Content-Length` said, a whole response
/// nobody asked for) are read as the start of the next request's response. libcurl 7.88 reuses such a
/// connection: it only checks that the peer has not closed it. The next request then failed as malformed, or
/// got the unasked-for response as its own. libcurl 8 refuses a connection with input waiting; the loop does the
/// same here (``CurlMultiLoop/connectionReady(for:endpoints:reused:)``).
///
/// Pure: the loop reports the sockets libcurl opens and closes and the exchanges that end, and asks which socket
/// a reused connection is; reading a socket is the loop's. libcurl's prerequest callback names a connection by
/// its ends (``Endpoints``), not by its socket, so a socket is matched to its ends when an HTTP/1 exchange on it
/// ends, and forgotten when it closes. Loop thread only.
struct ConnectionSockets {
    /// A connection's ends, as libcurl's prerequest callback names them (never read from a socket).
    struct Endpoints: Hashable {
        var localPort: UInt16
        var remotePort: UInt16
        /// The remote address as libcurl writes it: its bytes when they fit in 16, else their length and a hash.
        var remoteAddressHigh: UInt64
        var remoteAddressLow: UInt64

        /// One word into the hasher rather than four: a lookup runs for every request on a reused connection.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt64(localPort) << 48 ^ UInt64(remotePort) << 32 ^ remoteAddressHigh ^ remoteAddressLow.byteSwapped)
        }
    }

    /// Every socket libcurl opened for a connection and has not closed.
    private var open: Set<Int32> = []
    /// The sockets of HTTP/1 connections whose last exchange ended, by their ends, and the other way round.
    private var socketsByEnds: [Endpoints: Int32] = [:]
    private var endsBySocket: [Int32: Endpoints] = [:]
    /// Connections that must carry no other exchange: a head on them framed its body both by a transfer coding and
    /// by a length, or by a transfer coding in HTTP/1.0 (``ContentLengthCheck/Reading/forbidsReuse(version:)``).
    /// Kept from that head until its exchange ended, so that a request libcurl gives the connection in between (in
    /// the same pass) is moved off it too.
    private var condemned: Set<Endpoints> = []

    /// libcurl made `socket` for a connection.
    mutating func opened(_ socket: Int32) {
        open.insert(socket)
        forgetEnds(of: socket)  // a number the system gave again after a close this table missed
    }

    /// libcurl closed `socket`.
    mutating func closed(_ socket: Int32) {
        open.remove(socket)
        forgetEnds(of: socket)
    }

    /// An exchange on the connection with `ends` ended. For an HTTP/1 exchange, `socket` names the connection's
    /// socket if the table does not know it yet: asked at most once per connection, and only a socket of a
    /// connection libcurl opened, not yet matched to other ends, is taken. Any other exchange (HTTP/2, many at a
    /// time on one connection) takes the connection out: it is never checked.
    mutating func exchangeEnded(on ends: Endpoints, http1: Bool, socket: () -> Int32?) {
        guard http1 else {
            if let known = socketsByEnds.removeValue(forKey: ends) { endsBySocket[known] = nil }
            return
        }
        guard socketsByEnds[ends] == nil, let found = socket(), open.contains(found), endsBySocket[found] == nil else { return }
        socketsByEnds[ends] = found
        endsBySocket[found] = ends
    }

    /// The socket to look at before a request reuses the connection with `ends`: an HTTP/1 connection whose last
    /// exchange ended; nil for any other.
    func socketToCheck(reusing ends: Endpoints) -> Int32? {
        socketsByEnds[ends]
    }

    /// The sockets of HTTP/1 connections whose ends are not in `held` (the ends of the connections transfers hold
    /// now): idle in libcurl's pool.
    func idleSockets(notHeldBy held: Set<Endpoints>) -> [Int32] {
        socketsByEnds.compactMap { held.contains($0.key) ? nil : $0.value }
    }

    /// The connection with `ends` must carry no other exchange.
    mutating func condemn(_ ends: Endpoints) {
        condemned.insert(ends)
    }

    /// Whether the connection with `ends` must carry no other exchange.
    func isCondemned(_ ends: Endpoints) -> Bool {
        !condemned.isEmpty && condemned.contains(ends)
    }

    /// The condemned connection with `ends` is done with (its exchange ended, and it was shut down or closed).
    mutating func release(_ ends: Endpoints) {
        condemned.remove(ends)
    }

    /// Every socket libcurl opened and has not closed, for finding a connection's socket by its ends.
    var openSockets: Set<Int32> { open }

    /// The loop shut `socket` down: libcurl will close it, and it is not checked again meanwhile.
    mutating func retire(_ socket: Int32) {
        forgetEnds(of: socket)
    }

    /// How many sockets are open, and how many are matched to their ends (for tests).
    var counts: (open: Int, matched: Int) { (open.count, socketsByEnds.count) }

    private mutating func forgetEnds(of socket: Int32) {
        if let ends = endsBySocket.removeValue(forKey: socket) { socketsByEnds[ends] = nil }
    }
}
