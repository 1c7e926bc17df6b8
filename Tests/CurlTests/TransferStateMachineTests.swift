@testable import CourierCurl
import CourierTesting
import Testing

@Suite("Transfer state machine")
struct TransferStateMachineTests {
    private func running() -> TransferStateMachine {
        var machine = TransferStateMachine()
        do { let result = machine.started(); #expect(result) }
        return machine
    }

    @Test func desiredMaskCombinesSuspendBackpressureAndStarvation() {
        #expect(TransferStateMachine.desired(suspended: false, readerBehind: false, uploadStarved: false) == [])
        #expect(TransferStateMachine.desired(suspended: false, readerBehind: true, uploadStarved: false) == .receive)
        #expect(TransferStateMachine.desired(suspended: false, readerBehind: false, uploadStarved: true) == .send)
        #expect(TransferStateMachine.desired(suspended: false, readerBehind: true, uploadStarved: true) == .all)
        #expect(TransferStateMachine.desired(suspended: true, readerBehind: false, uploadStarved: false) == .all)
    }

    @Test func appliesOnlyWhatChanges() {
        var machine = running()
        do { let action = machine.pauseAction(desired: []); #expect(action == .none) }
        do { let action = machine.pauseAction(desired: .receive); #expect(action == .apply(.receive)) }
        machine.pauseCallReturned(succeeded: true)
        #expect(machine.applied == .receive)
        do { let action = machine.pauseAction(desired: .receive); #expect(action == .none) }
    }

    /// The stall of issue 11: un-pausing hands libcurl's held-back bytes to the write callback
    /// inside `curl_easy_pause`; a reader still behind pauses again. That pause must survive, so
    /// the next un-pause is sent.
    @Test func aPauseMadeByACallbackInsideTheCallWins() {
        var machine = running()
        machine.callbackPaused(.receive)   // the reader fell behind
        #expect(machine.applied == .receive)
        do { let action = machine.pauseAction(desired: []); #expect(action == .apply([])) }   // the reader caught up: un-pause
        machine.callbackPaused(.receive)   // ... and the held bytes overflow it again, inside the call
        machine.pauseCallReturned(succeeded: true)
        #expect(machine.applied == .receive)
        do { let action = machine.pauseAction(desired: []); #expect(action == .apply([])) }   // so the next un-pause is sent
    }

    @Test func aFailedCallRestoresTheMaskBeforeItPlusCallbackPauses() {
        var machine = running()
        do { let action = machine.pauseAction(desired: .all); #expect(action == .apply(.all)) }
        machine.pauseCallReturned(succeeded: false)   // no connection yet
        #expect(machine.applied == [])
        do { let action = machine.pauseAction(desired: .all); #expect(action == .apply(.all)) }   // tried again

        var other = running()
        other.callbackPaused(.receive)
        do { let action = other.pauseAction(desired: .send); #expect(action == .apply(.send)) }
        other.callbackPaused(.send)
        other.pauseCallReturned(succeeded: false)
        #expect(other.applied == .all)
    }

    /// A transfer sent again on another connection waits to be added again, with nothing paused (its new handle
    /// has no pause), so its pauses are applied anew; one whose head was handed over, or that ended, is not.
    @Test func aTransferLeavingToBeSentAgainWaitsWithNothingPaused() {
        var machine = running()
        machine.callbackPaused(.send)
        do { let action = machine.pauseAction(desired: .all); #expect(action == .apply(.all)) }
        do { let left = machine.leftToResend(); #expect(left) }
        #expect(machine.phase == .waiting)
        #expect(machine.applied == [])
        do { let action = machine.pauseAction(desired: .all); #expect(action == .none) }   // not running yet
        do { let started = machine.started(); #expect(started) }
        do { let action = machine.pauseAction(desired: .all); #expect(action == .apply(.all)) }

        var answered = running()
        do { let deliver = answered.deliverHead(cancelled: false); #expect(deliver) }
        do { let left = answered.leftToResend(); #expect(!left) }
        #expect(answered.phase == .running)

        var ended = running()
        do { let result = ended.ended(); #expect(result) }
        do { let left = ended.leftToResend(); #expect(!left) }
        var waiting = TransferStateMachine()
        do { let left = waiting.leftToResend(); #expect(!left) }
    }

    @Test func aCallbackPauseOutsideACallIsRecorded() {
        var machine = running()
        machine.callbackPaused(.send)
        #expect(machine.applied == .send)
        do { let action = machine.pauseAction(desired: .send); #expect(action == .none) }
        do { let action = machine.pauseAction(desired: []); #expect(action == .apply([])) }
    }

    @Test func onlyARunningTransferPauses() {
        var waiting = TransferStateMachine()
        do { let action = waiting.pauseAction(desired: .all); #expect(action == .none) }
        var machine = running()
        do { let result = machine.ended(); #expect(result) }
        do { let action = machine.pauseAction(desired: .all); #expect(action == .none) }
    }

    @Test func theFirstEndingWinsAndIsHandedOverOnce() {
        var machine = running()
        do { let result = machine.ended(); #expect(result) }
        do { let result = machine.ended(); #expect(!result) }
        do { let result = machine.finish(); #expect(result) }
        do { let result = machine.finish(); #expect(!result) }
        #expect(machine.phase == .finished)
    }

    @Test func aTransferCancelledBeforeItStartedNeverStarts() {
        var machine = TransferStateMachine()
        do { let result = machine.ended(); #expect(result) }
        do { let result = machine.started(); #expect(!result) }
        #expect(machine.phase == .ended)
    }

    @Test func theHeadIsDeliveredOnceAndNeverAfterACancellation() {
        var machine = running()
        do { let result = machine.deliverHead(cancelled: true); #expect(!result) }
        do { let result = machine.deliverHead(cancelled: false); #expect(result) }
        do { let result = machine.deliverHead(cancelled: false); #expect(!result) }
        #expect(machine.headDelivered)

        var late = running()
        do { let result = late.ended(); #expect(result) }
        do { let result = late.finish(); #expect(result) }
        do { let result = late.deliverHead(cancelled: false); #expect(!result) }
    }

    /// The bookkeeping holds for any interleaving: after every call returns, `applied` is what
    /// libcurl would have (simulated), whatever callbacks did inside and whether calls failed.
    @Test func randomInterleavingsKeepTheBookkeepingTrue() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<2_000 {
            var machine = running()
            var curl: PauseMask = []   // what a simulated libcurl has paused
            for _ in 0..<50 {
                switch generator.next() % 3 {
                case 0:
                    let direction: PauseMask = generator.next() % 2 == 0 ? .receive : .send
                    machine.callbackPaused(direction)
                    curl.insert(direction)
                default:
                    let desired = PauseMask(rawValue: UInt8(generator.next() % 4))
                    guard case .apply(let mask) = machine.pauseAction(desired: desired) else {
                        #expect(desired == machine.applied)
                        continue
                    }
                    let succeeds = generator.next() % 4 != 0
                    if succeeds { curl = mask }
                    if generator.next() % 2 == 0 {   // a callback pauses inside the call
                        let direction: PauseMask = generator.next() % 2 == 0 ? .receive : .send
                        machine.callbackPaused(direction)
                        curl.insert(direction)
                    }
                    machine.pauseCallReturned(succeeded: succeeds)
                }
                #expect(machine.applied == curl)
            }
        }
    }
}
