/// Easy handles kept while a connection they were given may still hold their address
/// (`CurlMultiLoop+QueuedRequests.swift` says why), by those connections' sockets and ends. A handle goes once every
/// such connection is done with it: libcurl closed the connection, or a request given the same connection after the
/// handle was kept got its answer's head (nghttp2 opens a connection's streams in the order their requests came, so
/// by then it has dealt with the kept handle's request). Handles whose connection can no longer be told (a socket
/// number found under other ends, or a connection without ends) stay until the loop ends. Pure, so it is tested
/// without sockets; the loop owns it, on its thread.
struct ParkedHandles<Handle, Ends: Hashable> {
    /// A kept handle and how many connections still hold it.
    private final class Kept {
        let handle: Handle
        var holders: Int
        /// Kept until the loop ends, whatever its holders do.
        var stranded = false

        init(handle: Handle, holders: Int) {
            self.handle = handle
            self.holders = holders
        }
    }

    /// A handle kept for one connection, and how many connections the loop had given requests when it was kept.
    private struct Entry {
        let kept: Kept
        let grants: UInt64
    }

    private var bySocket: [Int32: (ends: Ends, entries: [Entry])] = [:]
    private var socketByEnds: [Ends: Int32] = [:]
    private var stranded: [Kept] = []
    /// Handles kept in all, each once.
    private(set) var count = 0

    /// Keeps `handle` while any of `connections` (each a socket and the connection's ends) may hold its address;
    /// `grants` is how many connections the loop has given requests so far. Returns the most handles one of those
    /// connections keeps now. Handles kept under one of the socket numbers for other ends stay until the loop ends:
    /// the table cannot tell whether their connection let go of them.
    mutating func park(_ handle: Handle, grants: UInt64, on connections: [(socket: Int32, ends: Ends)]) -> Int {
        let kept = Kept(handle: handle, holders: connections.count)
        count += 1
        var most = 0
        for (socket, ends) in connections {
            if var held = bySocket[socket], held.ends == ends {
                held.entries.append(Entry(kept: kept, grants: grants))
                bySocket[socket] = held
                most = max(most, held.entries.count)
                continue
            }
            if let other = bySocket[socket] {
                socketByEnds[other.ends] = nil
                for entry in other.entries where !entry.kept.stranded {
                    entry.kept.stranded = true
                    stranded.append(entry.kept)
                }
            }
            bySocket[socket] = (ends, [Entry(kept: kept, grants: grants)])
            socketByEnds[ends] = socket
            most = max(most, 1)
        }
        return most
    }

    /// Keeps `handle` until the loop ends: a connection it was given cannot be told.
    mutating func strand(_ handle: Handle) {
        let kept = Kept(handle: handle, holders: 0)
        kept.stranded = true
        stranded.append(kept)
        count += 1
    }

    /// libcurl closed `socket`: the handles no other connection holds any more, to be freed. A number the system
    /// gives again belongs to another connection, which starts with none.
    mutating func closed(_ socket: Int32) -> [Handle] {
        guard let held = bySocket.removeValue(forKey: socket) else { return [] }
        socketByEnds[held.ends] = nil
        return letGo(held.entries)
    }

    /// A request that was the `grant`-th given a connection, the one with `ends`, got its answer's head: the handles
    /// that connection kept before that request was given it are let go; those no other connection holds, to be freed.
    mutating func answered(on ends: Ends, grant: UInt64) -> [Handle] {
        guard let socket = socketByEnds[ends], var held = bySocket[socket] else { return [] }
        let done = held.entries.prefix { $0.grants < grant }
        guard !done.isEmpty else { return [] }
        held.entries.removeFirst(done.count)
        if held.entries.isEmpty {
            bySocket[socket] = nil
            socketByEnds[ends] = nil
        } else {
            bySocket[socket] = held
        }
        return letGo(Array(done))
    }

    /// Every handle kept, each once, for the loop's end, once libcurl has closed every connection.
    mutating func removeAll() -> [Handle] {
        var seen = Set<ObjectIdentifier>()
        var all: [Handle] = []
        for kept in bySocket.values.flatMap({ $0.entries.map(\.kept) }) + stranded where seen.insert(ObjectIdentifier(kept)).inserted {
            all.append(kept.handle)
        }
        bySocket.removeAll()
        socketByEnds.removeAll()
        stranded.removeAll()
        count = 0
        return all
    }

    /// Whether no handle is kept.
    var isEmpty: Bool { count == 0 }

    private mutating func letGo(_ entries: [Entry]) -> [Handle] {
        var free: [Handle] = []
        for entry in entries {
            entry.kept.holders -= 1
            if entry.kept.holders == 0, !entry.kept.stranded {
                free.append(entry.kept.handle)
                count -= 1
            }
        }
        return free
    }
}
