@testable import CourierCurl
import CourierTesting
import Testing

@Suite("Host admission")
struct HostAdmissionTests {
    /// A stand-in for a transfer: compared by identity, as transfers are.
    final class Item: CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }
        var description: String { name }
    }

    private let start = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    @Test func aHostRunsUpToItsLimitAndTheRestWaitInOrder() {
        var admission = HostAdmission<Item, String>(limit: 2)
        do { let result = admission.tryStart(host: "a:80"); #expect(result) }
        do { let result = admission.tryStart(host: "a:80"); #expect(result) }
        do { let result = admission.tryStart(host: "a:80"); #expect(!result) }
        let third = Item("third"), fourth = Item("fourth")
        admission.enqueue(third, host: "a:80", deadline: nil)
        admission.enqueue(fourth, host: "a:80", deadline: nil)
        #expect(admission.running(host: "a:80") == 2)
        #expect(admission.waiting(host: "a:80") == 2)

        do { let result = admission.release(host: "a:80"); #expect(result === third) }
        do { let result = admission.release(host: "a:80"); #expect(result === fourth) }
        #expect(admission.running(host: "a:80") == 2)
        do { let result = admission.release(host: "a:80"); #expect(result == nil) }
        do { let result = admission.release(host: "a:80"); #expect(result == nil) }
        #expect(admission.running(host: "a:80") == 0)
    }

    @Test func hostsDoNotShareTheirLimit() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a:80"); #expect(result) }
        do { let result = admission.tryStart(host: "b:80"); #expect(result) }
        do { let result = admission.tryStart(host: "a:80"); #expect(!result) }
        do { let result = admission.tryStart(host: "b:80"); #expect(!result) }
    }

    /// A host's entry stays its own while many other hosts come (the table grows, its entries move) and go.
    @Test func theLastHostIsFoundAgainAfterTheTableChanges() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a:80"); #expect(result) }
        let waiting = Item("waiting")
        admission.enqueue(waiting, host: "a:80", deadline: nil)
        for index in 0..<200 {
            do { let result = admission.tryStart(host: "h\(index):80"); #expect(result) }
        }
        do { let result = admission.release(host: "a:80"); #expect(result === waiting) }
        #expect(admission.running(host: "a:80") == 1)
        for index in 0..<200 {
            do { let result = admission.release(host: "h\(index):80"); #expect(result == nil) }
            #expect(admission.running(host: "h\(index):80") == 0)
        }
        do { let result = admission.release(host: "a:80"); #expect(result == nil) }
        #expect(admission.running(host: "a:80") == 0)
        do { let result = admission.tryStart(host: "a:80"); #expect(result) }
    }

    /// A slot that frees while others wait goes to the first of them, never to a newcomer.
    @Test func aNewcomerNeverOvertakesTheLine() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a"); #expect(result) }
        let waiting = Item("waiting")
        admission.enqueue(waiting, host: "a", deadline: nil)
        do { let result = admission.tryStart(host: "a"); #expect(!result) }
        do { let result = admission.release(host: "a"); #expect(result === waiting) }
    }

    @Test func aRemovedTransferLeavesTheLine() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a"); #expect(result) }
        let first = Item("first"), second = Item("second"), third = Item("third")
        for item in [first, second, third] { admission.enqueue(item, host: "a", deadline: nil) }
        do { let result = admission.remove(second, host: "a"); #expect(result) }
        do { let result = admission.remove(second, host: "a"); #expect(!result) }
        do { let result = admission.remove(first, host: "a"); #expect(result) }
        #expect(admission.waiting(host: "a") == 1)
        do { let result = admission.release(host: "a"); #expect(result === third) }
        do { let result = admission.remove(third, host: "a"); #expect(!result, "an admitted transfer is not waiting") }
        do { let result = admission.remove(Item("stranger"), host: "b"); #expect(!result) }
    }

    @Test func deadlinesExpireOnlyTheirOwnTransfers() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a"); #expect(result) }
        do { let result = admission.tryStart(host: "b"); #expect(result) }
        let soon = Item("soon"), later = Item("later"), never = Item("never"), other = Item("other")
        admission.enqueue(never, host: "a", deadline: nil)
        admission.enqueue(later, host: "a", deadline: at(200))
        admission.enqueue(soon, host: "a", deadline: at(100))
        admission.enqueue(other, host: "b", deadline: at(100))
        #expect(admission.nextDeadline == at(100))

        do { let result = admission.expired(at: at(99)); #expect(result.isEmpty) }
        let first = admission.expired(at: at(100))
        #expect(Set(first.map(\.name)) == ["soon", "other"])
        #expect(admission.nextDeadline == at(200))
        do { let result = admission.expired(at: at(250)); #expect(result.map(\.name) == ["later"]) }
        #expect(admission.nextDeadline == nil)
        do { let result = admission.release(host: "a"); #expect(result === never) }
        do { let result = admission.release(host: "b"); #expect(result == nil) }
    }

    /// A deadline earlier than every other one still counts once the transfer that had it has left: the
    /// next look finds nothing due and moves the deadline on.
    @Test func aStaleDeadlineIsHarmless() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a"); #expect(result) }
        let early = Item("early"), late = Item("late")
        admission.enqueue(early, host: "a", deadline: at(10))
        admission.enqueue(late, host: "a", deadline: at(500))
        do { let result = admission.release(host: "a"); #expect(result === early) }
        #expect(admission.nextDeadline == at(10))
        do { let result = admission.expired(at: at(20)); #expect(result.isEmpty) }
        #expect(admission.nextDeadline == at(500))
    }

    @Test func shuttingDownTakesEveryWaitingTransfer() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let result = admission.tryStart(host: "a"); #expect(result) }
        do { let result = admission.tryStart(host: "b"); #expect(result) }
        admission.enqueue(Item("a1"), host: "a", deadline: at(5))
        admission.enqueue(Item("a2"), host: "a", deadline: nil)
        admission.enqueue(Item("b1"), host: "b", deadline: nil)
        do { let result = admission.removeAllWaiting(); #expect(result.map(\.name).sorted() == ["a1", "a2", "b1"]) }
        #expect(admission.nextDeadline == nil)
        #expect(admission.waiting(host: "a") == 0)
    }

    /// A transfer that waits for ever at the head, with thousands expiring or cancelled behind it: the line
    /// gives their slots back instead of growing with every call. (Checked with plain comparisons, one
    /// expectation at the end: these tests run on the cooperative pool, and thousands of `#expect`s under
    /// ThreadSanitizer held its threads long enough to starve other suites.)
    @Test func spentSlotsBehindALongWaiterAreGivenBack() {
        var admission = HostAdmission<Item, String>(limit: 1)
        do { let started = admission.tryStart(host: "a"); #expect(started) }
        let forever = Item("forever")
        admission.enqueue(forever, host: "a", deadline: nil)
        var failures: [String] = []
        var mostSlots = 0
        for round in 0..<2_000 {
            let item = Item("\(round)")
            admission.enqueue(item, host: "a", deadline: round % 2 == 0 ? at(round) : nil)
            if round % 2 == 0 {
                let gone = admission.expired(at: at(round))
                if gone.count != 1 || gone.first !== item { failures.append("round \(round): expired \(gone)") }
            } else if !admission.remove(item, host: "a") {
                failures.append("round \(round): not removed")
            }
            if admission.waiting(host: "a") != 1 { failures.append("round \(round): \(admission.waiting(host: "a")) waiting") }
            mostSlots = max(mostSlots, admission.storedSlots(host: "a"))
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(mostSlots <= 130, "\(mostSlots) slots for 1 waiting")
        do { let next = admission.release(host: "a"); #expect(next === forever) }
    }

    /// More calls than the limit, each waiting its turn, for thousands of turns: the line moves through the same
    /// storage (it never grows past 32 slots here, and is not made again), in arrival order.
    @Test func aBusyLineKeepsItsStorage() {
        var admission = HostAdmission<Item, String>(limit: 8)
        for _ in 0..<8 { _ = admission.tryStart(host: "a") }
        var line: [Item] = []
        for index in 0..<8 {
            let item = Item("w\(index)")
            admission.enqueue(item, host: "a", deadline: nil)
            line.append(item)
        }
        var failures: [String] = []
        var capacities = Set<Int>()
        for round in 0..<5_000 {
            let next = admission.release(host: "a")
            if next !== line.first { failures.append("round \(round): \(String(describing: next)) out of turn") }
            line.removeFirst()
            let item = Item("\(round)")
            admission.enqueue(item, host: "a", deadline: nil)
            line.append(item)
            if round >= 100 { capacities.insert(admission.storedCapacity(host: "a")) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        #expect(capacities.count == 1 && capacities.first.map { $0 <= 64 } == true, "capacities \(capacities.sorted())")
        #expect(admission.waiting(host: "a") == 8 && admission.running(host: "a") == 8)
    }

    /// A host that goes idle between busy spells is forgotten, and the next host to wait takes its line's storage
    /// instead of growing one again from a single slot.
    @Test func aLineOutlivesAMomentOfIdleness() {
        var admission = HostAdmission<Item, String>(limit: 1)
        func spell(_ host: String) -> [Int] {
            _ = admission.tryStart(host: host)
            var capacities: [Int] = []
            for index in 0..<6 {
                admission.enqueue(Item("\(host)\(index)"), host: host, deadline: nil)
                capacities.append(admission.storedCapacity(host: host))
            }
            while admission.release(host: host) != nil {}
            return capacities
        }
        let first = spell("a")
        #expect(admission.running(host: "a") == 0 && admission.storedCapacity(host: "a") == 0)
        let second = spell("a"), other = spell("b")
        #expect(first.first.map { $0 < 6 } == true, "\(first)")
        #expect(Set(second).count == 1 && second.first.map { $0 >= 6 } == true, "\(second)")
        #expect(Set(other).count == 1 && other == second, "\(other)")
    }

    /// A burst that waited gives back its storage once the line is short again, while the host stays busy.
    @Test func aBurstsStorageIsGivenBack() {
        var admission = HostAdmission<Item, String>(limit: 1)
        _ = admission.tryStart(host: "a")
        var items: [Item] = []
        for index in 0..<4_000 {
            let item = Item("b\(index)")
            admission.enqueue(item, host: "a", deadline: nil)
            items.append(item)
        }
        let burst = admission.storedCapacity(host: "a")
        for item in items.dropFirst(2).dropLast(2) { _ = admission.remove(item, host: "a") }
        #expect(admission.waiting(host: "a") == 4)
        #expect(burst >= 4_000 && admission.storedCapacity(host: "a") < 256, "\(burst) -> \(admission.storedCapacity(host: "a"))")
        let order = (0..<4).compactMap { _ in admission.release(host: "a") }
        #expect(order.count == 4 && order[0] === items[0] && order[1] === items[1] && order[2] === items[3_998] && order[3] === items[3_999])
    }

    /// Random starts, releases, removals and expiries against a plain model: per host, a running count and
    /// a list in arrival order. (The lines stay short here; `spentSlotsBehindALongWaiterAreGivenBack` drives the
    /// compaction of a long one.)
    @Test(arguments: [1, 2, 8])
    func randomOperationsMatchAPlainModel(limit: Int) {
        var random = SplitMix64(seed: UInt64(limit) &* 7919)
        var admission = HostAdmission<Item, String>(limit: limit)
        var running: [String: Int] = [:]
        var lines: [String: [(item: Item, deadline: Int?)]] = [:]
        var clock = 0
        var made = 0
        var failures: [String] = []
        for step in 0..<4_000 {
            func check(_ holds: Bool, _ what: @autoclosure () -> String) {
                if !holds { failures.append("step \(step): \(what())") }
            }
            let host = ["a", "b", "c"][Int(random.next() % 3)]
            switch random.next() % 10 {
            case 0...3:
                let expected = running[host, default: 0] < limit && (lines[host] ?? []).isEmpty
                let started = admission.tryStart(host: host)
                check(started == expected, "tryStart \(started)")
                if started {
                    running[host, default: 0] += 1
                } else {
                    made += 1
                    let item = Item("\(host)\(made)")
                    let deadline: Int? = random.next() % 2 == 0 ? nil : clock + Int(random.next() % 400)
                    admission.enqueue(item, host: host, deadline: deadline.map(at))
                    lines[host, default: []].append((item, deadline))
                }
            case 4...6:
                guard running[host, default: 0] > 0 else { continue }
                let next = admission.release(host: host)
                if var line = lines[host], !line.isEmpty {
                    let first = line.removeFirst().item
                    check(next === first, "released \(String(describing: next)), not \(first)")
                    lines[host] = line
                } else {
                    check(next == nil, "released \(String(describing: next)) from an empty line")
                    running[host, default: 0] -= 1
                }
            case 7:
                guard var line = lines[host], !line.isEmpty else { continue }
                let index = Int(random.next() % UInt64(line.count))
                check(admission.remove(line[index].item, host: host), "not removed")
                line.remove(at: index)
                lines[host] = line
            default:
                clock += Int(random.next() % 100)
                let expired = admission.expired(at: at(clock))
                var expected: [String] = []
                for key in lines.keys {
                    expected += lines[key]!.filter { $0.deadline.map { $0 <= clock } ?? false }.map(\.item.name)
                    lines[key]!.removeAll { $0.deadline.map { $0 <= clock } ?? false }
                }
                check(expired.map(\.name).sorted() == expected.sorted(), "expired \(expired), expected \(expected)")
                // Oldest first within a host: the order in which they arrived.
                for key in ["a", "b", "c"] {
                    let ofHost = expired.map(\.name).filter { $0.hasPrefix(key) }
                    check(ofHost == ofHost.sorted { Int($0.dropFirst())! < Int($1.dropFirst())! }, "expired out of order")
                }
            }
            // The next deadline may be early (a transfer with it left), never later than a live one.
            if let earliest = lines.values.flatMap({ $0 }).compactMap(\.deadline).min() {
                check(admission.nextDeadline.map { $0 <= at(earliest) } ?? false, "next deadline late")
            }
            check(admission.running(host: host) == running[host, default: 0], "running")
            check(admission.waiting(host: host) == lines[host]?.count ?? 0, "waiting")
            if failures.count > 5 { break }
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
