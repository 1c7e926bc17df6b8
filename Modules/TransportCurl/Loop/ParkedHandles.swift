/// Easy handles kept while the connection they were given may still hold their address
/// (`CurlMultiLoop+QueuedRequests.swift` says why), by that connection's socket and its ends. A handle goes when
/// libcurl closes its connection, or when a request given the same connection after the handle was kept gets its
/// answer's head: nghttp2 opens a connection's streams in the order their requests came, so by then it has dealt with
/// the kept handle's request and let go of the handle. Handles whose connection can no longer be told (a socket
/// number found under other ends, or a connection without ends) stay until the loop ends. Pure, so it is tested
/// without sockets; the loop owns it, on its thread.
struct ParkedHandles<Handle, Ends: Hashable> {
    /// A kept handle, and how many connections the loop had given requests when it was kept.
    private struct Entry {
        let handle: Handle
        let grants: UInt64
    }

    private var bySocket: [Int32: (ends: Ends, entries: [Entry])] = [:]
    private var socketByEnds: [Ends: Int32] = [:]
    private var stranded: [Handle] = []

    /// Keeps `handle` while `socket`, the connection with `ends`, may hold its address; `grants` is how many
    /// connections the loop has given requests so far. Returns how many handles that connection keeps now. Handles
    /// kept under the same socket number for other ends stay until the loop ends: the table cannot tell whether
    /// their connection let go of them.
    mutating func park(_ handle: Handle, grants: UInt64, on socket: Int32, ends: Ends) -> Int {
        let entry = Entry(handle: handle, grants: grants)
        if var kept = bySocket[socket], kept.ends == ends {
            kept.entries.append(entry)
            bySocket[socket] = kept
            return kept.entries.count
        }
        if let other = bySocket[socket] {
            socketByEnds[other.ends] = nil
            stranded += other.entries.map(\.handle)
        }
        bySocket[socket] = (ends, [entry])
        socketByEnds[ends] = socket
        return 1
    }

    /// Keeps `handle` until the loop ends: its connection has no ends to find it by (a Unix socket's).
    mutating func strand(_ handle: Handle) {
        stranded.append(handle)
    }

    /// libcurl closed `socket`: the handles kept for its connection, to be freed. A number the system gives again
    /// belongs to another connection, which starts with none.
    mutating func closed(_ socket: Int32) -> [Handle] {
        guard let kept = bySocket.removeValue(forKey: socket) else { return [] }
        socketByEnds[kept.ends] = nil
        return kept.entries.map(\.handle)
    }

    /// A request that was the `grant`-th given a connection, the one with `ends`, got its answer's head: the handles
    /// that connection kept before that request was given it, to be freed.
    mutating func answered(on ends: Ends, grant: UInt64) -> [Handle] {
        guard let socket = socketByEnds[ends], var kept = bySocket[socket] else { return [] }
        let free = kept.entries.prefix { $0.grants < grant }
        guard !free.isEmpty else { return [] }
        kept.entries.removeFirst(free.count)
        if kept.entries.isEmpty {
            bySocket[socket] = nil
            socketByEnds[ends] = nil
        } else {
            bySocket[socket] = kept
        }
        return free.map(\.handle)
    }

    /// Every handle kept, for the loop's end, once libcurl has closed every connection.
    mutating func removeAll() -> [Handle] {
        defer {
            bySocket.removeAll()
            socketByEnds.removeAll()
            stranded.removeAll()
        }
        return bySocket.values.flatMap { $0.entries.map(\.handle) } + stranded
    }

    /// Whether no handle is kept.
    var isEmpty: Bool { bySocket.isEmpty && stranded.isEmpty }

    /// How many handles are kept in all.
    var count: Int { bySocket.values.reduce(stranded.count) { $0 + $1.entries.count } }
}
