@testable import CourierCore
import Testing

@Suite("Transfer control observers")
struct TransferControlTests {
    /// The first observer is kept apart from the others; every one is told, and a cancelled one is not.
    @Test func everyObserverHearsEachChangeUntilCancelled() {
        let control = TransferControl()
        let heard = Locked<[String]>([])
        let first = control.observe { state in heard.withLock { $0.append("first \(state)") } }
        let second = control.observe { state in heard.withLock { $0.append("second \(state)") } }
        let third = control.observe { state in heard.withLock { $0.append("third \(state)") } }
        control.transition(to: .suspended)
        #expect(heard.withLock { $0.sorted() } == ["first suspended", "second suspended", "third suspended"])

        heard.withLock { $0.removeAll() }
        first.cancel()
        control.transition(to: .running)
        #expect(heard.withLock { $0.sorted() } == ["second running", "third running"])

        // The first slot is free again: a new observer takes it, and the others stay.
        heard.withLock { $0.removeAll() }
        let fourth = control.observe { state in heard.withLock { $0.append("fourth \(state)") } }
        third.cancel()
        control.transition(to: .cancelled)
        #expect(heard.withLock { $0.sorted() } == ["fourth cancelled", "second cancelled"])
        second.cancel()
        fourth.cancel()
    }

    @Test func aCancelledControlTellsNobodyAgain() {
        let control = TransferControl()
        let count = Locked(0)
        let observation = control.observe { _ in count.withLock { $0 += 1 } }
        control.transition(to: .cancelled)
        control.transition(to: .running)
        control.transition(to: .suspended)
        #expect(count.withLock { $0 } == 1)
        #expect(control.state == .cancelled)
        observation.cancel()
    }
}
