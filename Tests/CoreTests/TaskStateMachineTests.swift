@testable import CourierCore
import Testing

@Suite("Task state machine")
struct TaskStateMachineTests {
    @Test func newTaskIsSuspendedAndStartsOnResume() {
        var machine = TaskStateMachine()
        #expect(machine.state == .suspended)
        #expect(machine.resume() == .start)
        #expect(machine.state == .running)
        #expect(machine.resume() == .none)
    }

    @Test func suspendOnlyPausesARunningTask() {
        var machine = TaskStateMachine()
        #expect(machine.suspend() == .none)
        _ = machine.resume()
        #expect(machine.suspend() == .pause)
        #expect(machine.state == .suspended)
        #expect(machine.suspend() == .none)
        #expect(machine.resume() == .unpause)
    }

    @Test func cancelBeforeStartAbandons() {
        var machine = TaskStateMachine()
        #expect(machine.cancel() == .abandon)
        #expect(machine.state == .canceling)
        #expect(machine.resume() == .none)
        #expect(machine.cancel() == .none)
        let ok1 = machine.complete()
        #expect(ok1)
        #expect(machine.state == .completed)
    }

    @Test func cancelWhileRunningOrSuspendedAborts() {
        var running = TaskStateMachine()
        _ = running.resume()
        #expect(running.cancel() == .abort)
        var suspended = TaskStateMachine()
        _ = suspended.resume()
        _ = suspended.suspend()
        #expect(suspended.cancel() == .abort)
        #expect(suspended.suspend() == .none)
    }

    @Test func completionHappensOnceAndIsFinal() {
        var machine = TaskStateMachine()
        _ = machine.resume()
        let ok2 = machine.complete()
        #expect(ok2)
        let ok3 = machine.complete()
        #expect(!ok3)
        #expect(machine.resume() == .none)
        #expect(machine.suspend() == .none)
        #expect(machine.cancel() == .none)
    }

    @Test func inlineStartOnlyFromNotStarted() {
        var machine = TaskStateMachine()
        let ok4 = machine.startInline()
        #expect(ok4)
        #expect(machine.state == .running)
        let ok5 = machine.startInline()
        #expect(!ok5)
    }
}
