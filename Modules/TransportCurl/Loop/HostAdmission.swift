/// Which transfers to one host may enter the multi handle now, and which wait their turn: at most
/// `limit` at a time per host, first come first served, each waiting one until its deadline. Pure (no
/// curl, no clock of its own), so it is tested without sockets; the loop thread owns it.
///
/// Why Courier queues what libcurl would queue itself: libcurl 7.88 parks a transfer over
/// `CURLMOPT_MAX_HOST_CONNECTIONS` as "pending", and moves it back each time a connection is freed, where
/// it parses its URL and looks for a connection again. With 16 calls in flight and 8 connections, that
/// churn cost 20 of the 80 allocations of a small request, and the CPU that goes with them
/// (docs/performance.md). A transfer that can only ever have a connection of its own (cleartext
/// HTTP/1.1) needs a free one; Courier holds it until there is one. Transfers that may share a
/// connection (HTTP/2) are never held here: one connection serves many of them.
///
/// The items are compared by identity (`===`), so one item is never queued twice.
struct HostAdmission<Item: AnyObject> {
    /// A transfer waiting for a connection, and when it gives up.
    struct Waiting {
        let item: Item
        let deadline: ContinuousClock.Instant?
    }

    private struct Host {
        var running = 0
        /// First come first served; `head` is the next to go, earlier slots are spent.
        var waiting: [Waiting?] = []
        var head = 0

        var waitingCount: Int { waiting.count - head }
        var isIdle: Bool { running == 0 && waitingCount == 0 }
    }

    /// Transfers at once per host; at least 1.
    let limit: Int
    private var hosts: [String: Host] = [:]
    /// No waiting transfer has a deadline before this; a removal may leave it early, never late.
    private(set) var nextDeadline: ContinuousClock.Instant?

    init(limit: Int) {
        precondition(limit > 0, "a host admits at least one transfer")
        self.limit = limit
    }

    /// Whether a transfer for `key` may start now; if so, it counts as running until ``release(host:)``.
    /// No: the host's transfers are all running, or others wait before it (then ``enqueue(_:host:deadline:)``
    /// it).
    mutating func tryStart(host key: String) -> Bool {
        let limit = limit
        return withHost(key) { host in
            guard host.running < limit, host.waitingCount == 0 else { return false }
            host.running += 1
            return true
        }
    }

    /// Puts `item` at the end of `key`'s line, until ``release(host:)`` hands it over, its deadline passes
    /// (``expired(at:)``), or it is ``remove(_:host:)``d.
    mutating func enqueue(_ item: Item, host key: String, deadline: ContinuousClock.Instant?) {
        withHost(key) { $0.waiting.append(Waiting(item: item, deadline: deadline)) }
        if let deadline, nextDeadline.map({ deadline < $0 }) ?? true { nextDeadline = deadline }
    }

    /// A transfer admitted for `key` left the multi handle: the next waiting one, if any, takes its
    /// place (and must be started by the caller).
    mutating func release(host key: String) -> Item? {
        withHost(key) { host in
            if let next = Self.popFirst(&host) { return next.item }
            assert(host.running > 0, "released a host with nothing running")
            host.running -= 1
            return nil
        }
    }

    /// Takes `item` out of the waiting line (cancelled, or failed by the loop). False if it was not
    /// waiting: it was admitted, or never came here.
    mutating func remove(_ item: Item, host key: String) -> Bool {
        guard hosts[key] != nil else { return false }
        return withHost(key) { host in
            guard let index = host.waiting[host.head...].firstIndex(where: { $0?.item === item }) else { return false }
            host.waiting[index] = nil
            if index == host.head { Self.skipSpent(&host) }
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
                guard let waiting = host.waiting[index], let deadline = waiting.deadline else { continue }
                if deadline <= now {
                    expired.append(waiting.item)
                    host.waiting[index] = nil
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
            while let next = Self.popFirst(&host) { all.append(next.item) }
        }
        nextDeadline = nil
        return all
    }

    /// Runs `body` on `key`'s entry where it is stored (an entry copied out of the table and changed would
    /// copy its line, one allocation each time), then forgets the entry if nothing runs or waits for the
    /// host any more, so the table does not grow with every host ever called.
    private mutating func withHost<Result>(_ key: String, _ body: (inout Host) -> Result) -> Result {
        let index: Dictionary<String, Host>.Index
        if let found = hosts.index(forKey: key) {
            index = found
        } else {
            hosts[key] = Host()
            index = hosts.index(forKey: key)!
        }
        let result = body(&hosts.values[index])
        if hosts.values[index].isIdle { hosts.remove(at: index) }
        return result
    }

    /// `withHost` for every host.
    private mutating func forEachHost(_ body: (inout Host) -> Void) {
        for index in hosts.indices { body(&hosts.values[index]) }
        hosts = hosts.filter { !$0.value.isIdle }
    }

    /// Transfers admitted and not yet released, for `key`.
    func running(host key: String) -> Int { hosts[key]?.running ?? 0 }

    /// Transfers waiting, for `key`.
    func waiting(host key: String) -> Int {
        guard let host = hosts[key] else { return 0 }
        return host.waiting[host.head...].count { $0 != nil }
    }

    private static func popFirst(_ host: inout Host) -> Waiting? {
        skipSpent(&host)
        guard host.head < host.waiting.count, let first = host.waiting[host.head] else { return nil }
        host.waiting[host.head] = nil
        skipSpent(&host)
        return first
    }

    /// Moves `head` past removed entries, and gives the spent slots back once they are half the line.
    private static func skipSpent(_ host: inout Host) {
        while host.head < host.waiting.count, host.waiting[host.head] == nil { host.head += 1 }
        if host.head == host.waiting.count {
            host.waiting.removeAll(keepingCapacity: host.waiting.count <= 64)
            host.head = 0
        } else if host.head > 64, host.head * 2 > host.waiting.count {
            host.waiting.removeFirst(host.head)
            host.head = 0
        }
    }
}
