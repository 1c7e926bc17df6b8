@testable import CourierCurl
import Testing

@Suite("Completion coalescing")
struct CompletionCoalescingTests {
    private let window: Duration = .microseconds(100)
    private let start = ContinuousClock.now
    private let busy = CompletionCoalescing.minimumInFlight

    @Test func aFinishedTransferWithEnoughOthersInFlightIsHeldForTheWindow() {
        var coalescing = CompletionCoalescing(window: window)
        #expect(coalescing.decide(waiting: 1, inFlight: busy, now: start) == .hold(until: start + window))
        #expect(coalescing.deadline == start + window)
    }

    /// The window counts from the first transfer held: later ones share its deadline, so none waits longer.
    @Test func laterPassesKeepTheFirstDeadline() {
        var coalescing = CompletionCoalescing(window: window)
        _ = coalescing.decide(waiting: 1, inFlight: busy, now: start)
        let later = start + .microseconds(60)
        #expect(coalescing.decide(waiting: 3, inFlight: busy, now: later) == .hold(until: start + window))
    }

    @Test func theHeldAreResumedOnceTheDeadlinePasses() {
        var coalescing = CompletionCoalescing(window: window)
        _ = coalescing.decide(waiting: 1, inFlight: busy, now: start)
        #expect(coalescing.decide(waiting: 2, inFlight: busy, now: start + window) == .resume)
        #expect(coalescing.deadline == nil)
        // The next transfer held starts a window of its own.
        let next = start + window + .microseconds(5)
        #expect(coalescing.decide(waiting: 1, inFlight: busy, now: next) == .hold(until: next + window))
    }

    @Test func aFullBatchIsResumedAtOnce() {
        var coalescing = CompletionCoalescing(window: window)
        _ = coalescing.decide(waiting: CompletionCoalescing.batch - 1, inFlight: busy, now: start)
        #expect(coalescing.decide(waiting: CompletionCoalescing.batch, inFlight: busy, now: start) == .resume)
        #expect(coalescing.deadline == nil)
    }

    /// One call at a time, or a handful to slow servers: no answer may come within the window, so nothing waits.
    @Test func tooFewInFlightResumesAtOnce() {
        var coalescing = CompletionCoalescing(window: window)
        #expect(coalescing.decide(waiting: 1, inFlight: 0, now: start) == .resume)
        #expect(coalescing.decide(waiting: 1, inFlight: busy - 1, now: start) == .resume)
        // Held while others were in flight, then they finished: resumed with them, not after the window.
        _ = coalescing.decide(waiting: 2, inFlight: busy, now: start)
        #expect(coalescing.decide(waiting: 5, inFlight: busy - 1, now: start + .microseconds(10)) == .resume)
        #expect(coalescing.deadline == nil)
    }

    /// The last held call resumed by a cancellation leaves no deadline behind for the next one held.
    @Test func aForgottenDeadlineStartsAFreshWindow() {
        var coalescing = CompletionCoalescing(window: window)
        _ = coalescing.decide(waiting: 1, inFlight: busy, now: start)
        coalescing.forgetDeadline()
        #expect(coalescing.deadline == nil)
        let later = start + .microseconds(90)
        #expect(coalescing.decide(waiting: 1, inFlight: busy, now: later) == .hold(until: later + window))
    }

    @Test func nothingFinishedHoldsNothing() {
        var coalescing = CompletionCoalescing(window: window)
        #expect(coalescing.decide(waiting: 0, inFlight: 16, now: start) == .resume)
        #expect(coalescing.deadline == nil)
    }

    @Test func aZeroOrNegativeWindowTurnsHoldingOff() {
        for window in [Duration.zero, .microseconds(-5)] {
            var coalescing = CompletionCoalescing(window: window)
            #expect(coalescing.window == .zero)
            #expect(coalescing.decide(waiting: 1, inFlight: 16, now: start) == .resume)
        }
    }
}
