@testable import CourierCurl
import Testing

@Suite("Overdue watch")
struct OverdueWatchTests {
    /// A stand-in for a transfer in the multi handle: a name and its request deadline, if any.
    struct Transfer: Equatable {
        let name: String
        let deadline: ContinuousClock.Instant?
    }

    private let start = ContinuousClock.now

    private func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    private func graceMilliseconds() -> Int {
        Int(OverdueWatch.grace.components.seconds * 1000 + OverdueWatch.grace.components.attoseconds / 1_000_000_000_000_000)
    }

    @Test func nothingWatchedIsNeverDue() {
        let watch = OverdueWatch()
        #expect(watch.nextCheck == nil)
        #expect(!watch.mayBeOverdue(at: at(1_000_000)))
    }

    @Test func theNextCheckIsTheEarliestDeadlinePlusTheGrace() {
        var watch = OverdueWatch()
        watch.watch(deadline: at(900))
        watch.watch(deadline: at(300))
        watch.watch(deadline: at(600))
        #expect(watch.earliestDeadline == at(300))
        #expect(watch.nextCheck == at(300) + OverdueWatch.grace)
        #expect(!watch.mayBeOverdue(at: at(300)), "due at its deadline, before libcurl's own timeout had its grace")
        #expect(watch.mayBeOverdue(at: at(300 + graceMilliseconds())))
    }

    /// The walk returns the transfers past their deadline and the grace, in their order, skips those without a
    /// deadline, and leaves the earliest deadline of the rest for the next check.
    @Test func theWalkTakesTheOverdueAndRemembersTheRest() {
        var watch = OverdueWatch()
        let grace = graceMilliseconds()
        let transfers = [
            Transfer(name: "long overdue", deadline: at(100)),
            Transfer(name: "no limit", deadline: nil),
            Transfer(name: "within the grace", deadline: at(1_000 - grace + 1)),
            Transfer(name: "just overdue", deadline: at(1_000 - grace)),
            Transfer(name: "later", deadline: at(5_000)),
        ]
        for transfer in transfers { if let deadline = transfer.deadline { watch.watch(deadline: deadline) } }
        let overdue = watch.overdue(in: transfers, deadline: \.deadline, at: at(1_000))
        #expect(overdue.map(\.name) == ["long overdue", "just overdue"])
        #expect(watch.earliestDeadline == at(1_000 - grace + 1))
        #expect(!watch.mayBeOverdue(at: at(1_000)))
    }

    /// A transfer that left before its deadline leaves the watch early, never late: the next walk finds nothing
    /// and moves the check to what is really left.
    @Test func aTransferThatLeftOnlyMakesTheCheckEarly() {
        var watch = OverdueWatch()
        watch.watch(deadline: at(100))   // this one ends in time and leaves the multi handle
        watch.watch(deadline: at(2_000))
        let remaining = [Transfer(name: "still running", deadline: at(2_000))]
        #expect(watch.mayBeOverdue(at: at(500)))
        let overdue = watch.overdue(in: remaining, deadline: \.deadline, at: at(500))
        #expect(overdue.isEmpty)
        #expect(watch.earliestDeadline == at(2_000))
        #expect(!watch.mayBeOverdue(at: at(500)))
    }

    @Test func aWalkOverNothingForgetsEveryDeadline() {
        var watch = OverdueWatch()
        watch.watch(deadline: at(10))
        let overdue = watch.overdue(in: [Transfer](), deadline: \.deadline, at: at(1_000))
        #expect(overdue.isEmpty)
        #expect(watch.nextCheck == nil)
    }
}
