@testable import CourierCore
import HTTPTypes
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

    /// A task's control keeps its state in the task: every copy of it is the same switch, and the task's suspend,
    /// resume and cancel reach its observers, in order, and its waiters.
    @Test func aTasksControlIsTheTasksSwitch() async throws {
        let context = RequestContext(request: HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/"))
        let task = context.task
        let heard = Locked<[TransferControl.State]>([])
        let observation = context.control.observe { state in heard.withLock { $0.append(state) } }
        task.suspend()
        #expect(task.control.state == .suspended)
        #expect(context.control.state == .suspended)

        // A waiter waits while suspended and returns on resume.
        let waiter = Task { try await context.control.waitUntilRunning() }
        // The waiter must be waiting before the resume: ask until the task has one (only a waiter counts here).
        while task.withControlState({ $0.waiterCount }) == 0 { await Task.yield() }
        task.resume()
        try await waiter.value
        #expect(context.control.state == .running)

        task.suspend()
        let cancelled = Task { try await task.control.waitUntilRunning() }
        while task.withControlState({ $0.waiterCount }) == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(context.control.isCancelled)
        task.resume()
        #expect(context.control.state == .cancelled)
        #expect(heard.withLock { $0 } == [.suspended, .running, .suspended, .cancelled])
        observation.cancel()
        await #expect(throws: CancellationError.self) { try await context.control.waitUntilRunning() }
    }

    /// The state on its own: a change releases waiters unless it suspends, every change is told to every observer,
    /// and a cancelled state stays cancelled.
    @Test func theStateAloneReleasesWhatEachChangeShould() {
        var state = TransferControlState(state: .running)
        #expect(state.waiterID() == nil)
        #expect(state.transition(to: .running) == nil)
        let first = state.addObserver { _ in }
        let second = state.addObserver { _ in }
        let release = state.transition(to: .suspended)
        #expect(release?.state == .suspended)
        #expect(release?.firstObserver != nil)
        #expect(release?.moreObservers.count == 1)
        #expect(state.waiterID() != nil)
        state.removeObserver(first)
        let resumed = state.transition(to: .running)
        #expect(resumed?.firstObserver == nil)
        #expect(resumed?.moreObservers.count == 1)
        state.removeObserver(second)
        #expect(state.transition(to: .cancelled)?.state == .cancelled)
        #expect(state.transition(to: .running) == nil)
        #expect(state.transition(to: .suspended) == nil)
        #expect(state.state == .cancelled)
    }
}
