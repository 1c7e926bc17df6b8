/// Which transfers to one host may enter the multi handle now, and which wait their turn: at most
/// `limit` at a time per host, first come first served, each waiting one until its deadline. Pure (no
/// curl, no clock of its own), so it is tested without sockets; the loop thread owns it.
///
/// Why Courier queues what libcurl would queue itself: libcurl 7.88 parks a transfer over
/// `CURLMOPT_MAX_HOST_CONNECTIONS` as "pending" and checks its timeout only when it retries it, which it does
/// when a connection comes free; so a call behind busy connections could wait far past its timeout (60 s
/// instead of 0.5 s in `ConnectionAdmissionTests`). A transfer that can only ever have a connection of its own
/// (HTTP/1.1, or a connection forced fresh) needs a free one; Courier holds it until there is one, and fails
/// it at its deadline. Transfers that may share a connection (HTTP/2) are never held here: one connection
/// serves many of them.
///
/// Items are compared by identity (`===`); the caller enqueues an item at most once.
struct HostAdmission<Item: AnyObject, Key: Hashable> {
    /// A transfer waiting for a connection, and when it gives up; a spent slot (the transfer went, was removed or
    /// expired) has no item. Spent as a nil item rather than a nil slot: an optional of this generic struct is
    /// copied through its type's value witnesses, several calls per copy, where an optional reference is a pointer.
    private struct Waiting {
        var item: Item?
        let deadline: ContinuousClock.Instant?
    }

    /// One host's transfers: how many run, and the line of those that wait.
    private struct Host {
        var running = 0
        /// First come first served; `head` is the next to go. A removed or expired transfer leaves a spent slot
        /// behind; the slot at `head` is never spent while anything waits (`skipSpent` keeps it so).
        var waiting: [Waiting] = []
        var head = 0
        /// Transfers really waiting: the line without its spent slots.
        var live = 0

        var isIdle: Bool { running == 0 && live == 0 }
    }

    /// Transfers at once per host; at least 1.
    let limit: Int
    private var hosts: [Key: Host] = [:]
    /// The emptied line of the last host that was forgotten, kept for the next host that needs one: a host that
    /// goes idle for a moment between busy spells (every connection free, nothing waiting) would otherwise grow its
    /// line again from one slot, four allocations each time.
    private var spareLine: [Waiting] = []
    /// No waiting transfer has a deadline before this; a removal may leave it early, never late.
    private(set) var nextDeadline: ContinuousClock.Instant?

    /// A line per host, each admitting `limit` transfers at once.
    init(limit: Int) {
        precondition(limit > 0, "a host admits at least one transfer")
        self.limit = limit
    }

    /// Whether a transfer for `key` may start now; if so, it counts as running until ``release(host:)``.
    /// No: the host's transfers are all running, or others wait before it (then ``enqueue(_:host:deadline:)``
    /// it).
    mutating func tryStart(host key: Key) -> Bool {
        let limit = limit
        return withHost(key) { host in
            guard host.running < limit, host.live == 0 else { return false }
            host.running += 1
            return true
        }
    }

    /// Puts `item` at the end of `key`'s line, until ``release(host:)`` hands it over, its deadline passes
    /// (``expired(at:)``), or it is ``remove(_:host:)``d.
    mutating func enqueue(_ item: Item, host key: Key, deadline: ContinuousClock.Instant?) {
        withHost(key) { host in
            host.waiting.append(Waiting(item: item, deadline: deadline))
            host.live += 1
        }
        if let deadline, nextDeadline.map({ deadline < $0 }) ?? true { nextDeadline = deadline }
    }

    /// A transfer admitted for `key` left the multi handle: the next waiting one, if any, takes its
    /// place (and must be started by the caller).
    mutating func release(host key: Key) -> Item? {
        withHost(key) { host in
            if let next = Self.popFirst(&host) { return next }
            // A second release of one transfer would let limit + 1 run at once.
            precondition(host.running > 0, "released a host with nothing running")
            host.running -= 1
            return nil
        }
    }

    /// Takes `item` out of the waiting line (cancelled, or failed by the loop). False if it was not
    /// waiting: it was admitted, or never came here.
    mutating func remove(_ item: Item, host key: Key) -> Bool {
        guard hosts[key] != nil else { return false }
        return withHost(key) { host in
            guard let index = host.waiting[host.head...].firstIndex(where: { $0.item === item }) else { return false }
            host.waiting[index].item = nil
            host.live -= 1
            Self.skipSpent(&host)
            return true
        }
    }

    /// The waiting transfers whose deadline is `now` or earlier, taken out of the line, oldest first
    /// per host. Cheap when no deadline is due: it looks at every waiting transfer only then.
    mutating func expired(at now: ContinuousClock.Instant) -> [Item] {
        guard let due = nextDeadline, due <= now else { return [] }
        var expired: [Item] = []
        var earliest: ContinuousClock.Instant?
        forEachHost { host in
            for index in host.waiting.indices where index >= host.head {
                guard let item = host.waiting[index].item, let deadline = host.waiting[index].deadline else { continue }
                if deadline <= now {
                    expired.append(item)
                    host.waiting[index].item = nil
                    host.live -= 1
                } else if earliest.map({ deadline < $0 }) ?? true {
                    earliest = deadline
                }
            }
            Self.skipSpent(&host)
        }
        nextDeadline = earliest
        return expired
    }

    /// Every waiting transfer, taken out of the line (the loop is shutting down).
    mutating func removeAllWaiting() -> [Item] {
        var all: [Item] = []
        forEachHost { host in
            while let next = Self.popFirst(&host) { all.append(next) }
        }
        nextDeadline = nil
        return all
    }

    /// Runs `body` on `key`'s entry where it is stored (an entry copied out of the table and changed would
    /// copy its line, one allocation each time), then forgets the entry if nothing runs or waits for the
    /// host any more, so the table does not grow with every host ever called.
    ///
    /// A host not in the table is changed as a fresh entry and stored only if it is not idle afterwards: one
    /// lookup and one insertion, where storing it first would hash the key three times (one call at a time to a
    /// host adds and forgets its entry with every call).
    private mutating func withHost<Result>(_ key: Key, _ body: (inout Host) -> Result) -> Result {
        if let index = hosts.index(forKey: key) {
            let result = body(&hosts.values[index])
            if hosts.values[index].isIdle { keepSpare(hosts.remove(at: index).value.waiting) }
            return result
        }
        var host = Host()
        swap(&host.waiting, &spareLine)
        let result = body(&host)
        if host.isIdle {
            keepSpare(host.waiting)
        } else {
            hosts[key] = host
        }
        return result
    }

    /// Keeps an idle host's line, emptied, as ``spareLine`` when it is larger and not a burst's (64 slots at most).
    private mutating func keepSpare(_ line: consuming [Waiting]) {
        guard line.capacity <= 64, line.capacity > spareLine.capacity else { return }
        line.removeAll(keepingCapacity: true)
        spareLine = line
    }

    /// `withHost` for every host. Walked by index rather than `hosts.indices`, which would hold the table and
    /// make the first change copy it. No host becomes idle here: one with waiting transfers runs `limit`.
    private mutating func forEachHost(_ body: (inout Host) -> Void) {
        var index = hosts.startIndex
        while index != hosts.endIndex {
            body(&hosts.values[index])
            index = hosts.index(after: index)
        }
    }

    /// Transfers admitted and not yet released, for `key`.
    func running(host key: Key) -> Int { hosts[key]?.running ?? 0 }

    /// Transfers waiting, for `key`.
    func waiting(host key: Key) -> Int { hosts[key]?.live ?? 0 }

    /// Slots the line of `key` holds, spent ones included (for tests of its compaction).
    func storedSlots(host key: Key) -> Int {
        guard let host = hosts[key] else { return 0 }
        return host.waiting.count - host.head
    }

    private static func popFirst(_ host: inout Host) -> Item? {
        skipSpent(&host)
        guard host.head < host.waiting.count, let first = host.waiting[host.head].item else { return nil }
        host.waiting[host.head].item = nil
        host.live -= 1
        skipSpent(&host)
        return first
    }

    /// Moves `head` past spent slots, and drops the spent slots once they are more than half of a line of 32 or
    /// more: a transfer that waits for ever at the head, with others expiring behind it, must not make the line
    /// grow with every call.
    ///
    /// The spent slots go in place, so a line that stays busy (more calls than connections, every call waiting
    /// its turn) keeps its storage: copying the live slots out made a new array, which then grew again slot by
    /// slot, about one allocation per ten calls. After a burst, a line far larger than what still waits is given
    /// back.
    private static func skipSpent(_ host: inout Host) {
        while host.head < host.waiting.count, host.waiting[host.head].item == nil { host.head += 1 }
        if host.live == 0 {
            host.waiting.removeAll(keepingCapacity: host.waiting.count <= 64)
            host.head = 0
        } else if host.waiting.count >= 32, host.live * 2 < host.waiting.count {
            host.waiting.removeAll { $0.item == nil }
            host.head = 0
            if host.waiting.capacity > 256, host.waiting.count * 4 < host.waiting.capacity {
                host.waiting = host.waiting.map { $0 }
            }
        }
    }

    /// Slots the line of `key` has room for (for tests that it keeps its storage).
    func storedCapacity(host key: Key) -> Int { hosts[key]?.waiting.capacity ?? 0 }
}
