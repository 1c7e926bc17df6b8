/// The directions of a transfer libcurl can pause.
struct PauseMask: OptionSet, Sendable, Hashable, CustomStringConvertible {
    let rawValue: UInt8
    /// Receiving the response (`CURLPAUSE_RECV`).
    static let receive = PauseMask(rawValue: 1)
    /// Sending the request body (`CURLPAUSE_SEND`).
    static let send = PauseMask(rawValue: 2)
    static let all: PauseMask = [.receive, .send]

    var description: String {
        switch self {
        case []: return "none"
        case .receive: return "receive"
        case .send: return "send"
        default: return "all"
        }
    }
}

/// The pure bookkeeping of a ``CurlTransfer`` on the loop thread: where it is in its life, and
/// which directions libcurl has paused against which Courier wants paused. No curl, no locks, so
/// every interleaving is tested on its own (`TransferStateMachineTests`).
///
/// The pause rule that matters: libcurl runs callbacks inside `curl_easy_pause`. Un-pausing a
/// transfer hands the callbacks the bytes libcurl held back, and a write callback whose reader is
/// still behind pauses the transfer again, inside that call. That pause is the truth (libcurl has
/// the direction paused), so it must survive the call's own bookkeeping; were it overwritten with
/// the mask that was asked for, the next un-pause would never be sent and the transfer would sit
/// paused for ever, with no timeout firing.
struct TransferStateMachine: Sendable {
    enum Phase: Sendable, Equatable {
        /// Made; not yet in the multi handle.
        case waiting
        /// In the multi handle.
        case running
        /// Ended (by curl, a cancellation or a failure to start); the ending is not handed over yet.
        case ended
        /// The ending was handed over: nothing more happens.
        case finished
    }

    /// What the loop must do about pausing.
    enum PauseAction: Equatable {
        /// libcurl already has the wanted mask, or the transfer is not running.
        case none
        /// Call `curl_easy_pause` with this mask, then ``pauseCallReturned(succeeded:)``.
        case apply(PauseMask)
    }

    private(set) var phase: Phase = .waiting
    /// What libcurl has paused, as far as Courier knows.
    private(set) var applied: PauseMask = []
    /// Set while `curl_easy_pause` runs: the mask before the call and the pauses callbacks made during it.
    private var call: (before: PauseMask, pausedInside: PauseMask)?
    /// The head was handed to the caller.
    private(set) var headDelivered = false

    /// The transfer is in the multi handle. False when it had already ended (cancelled before it started).
    mutating func started() -> Bool {
        guard phase == .waiting else { return false }
        phase = .running
        return true
    }

    /// The transfer left the multi handle to be sent again on another connection, before any answer came
    /// (``CurlTransfer/mayResend(after:)``): it waits to be added again, with a new easy handle, which has nothing
    /// paused. False when it was not running, or its head was handed over (the caller already has an answer).
    mutating func leftToResend() -> Bool {
        guard phase == .running, !headDelivered else { return false }
        phase = .waiting
        applied = []
        call = nil
        return true
    }

    /// The transfer ended; the first ending wins. False when it had already ended.
    mutating func ended() -> Bool {
        guard phase == .waiting || phase == .running else { return false }
        phase = .ended
        call = nil
        return true
    }

    /// The ending is being handed over. False when it was already (it is handed over once).
    mutating func finish() -> Bool {
        guard phase == .ended else { return false }
        phase = .finished
        return true
    }

    /// Whether the head is to be handed over now: once, and never after the transfer ended in a cancellation.
    mutating func deliverHead(cancelled: Bool) -> Bool {
        guard !headDelivered, !cancelled, phase != .finished else { return false }
        headDelivered = true
        return true
    }

    /// The mask Courier wants: all when suspended, receive when the reader is behind, send when the
    /// request body has nothing ready.
    static func desired(suspended: Bool, readerBehind: Bool, uploadStarved: Bool) -> PauseMask {
        if suspended { return .all }
        var mask: PauseMask = []
        if readerBehind { mask.insert(.receive) }
        if uploadStarved { mask.insert(.send) }
        return mask
    }

    /// Before calling `curl_easy_pause`: what to apply. O(1), whatever the number of transfers.
    mutating func pauseAction(desired: PauseMask) -> PauseAction {
        guard phase == .running, call == nil, desired != applied else { return .none }
        call = (before: applied, pausedInside: [])
        applied = desired
        return .apply(desired)
    }

    /// After `curl_easy_pause` returned. A pause a callback made inside the call wins over the mask
    /// asked for; a failed call (no connection yet) leaves libcurl as it was, plus those pauses, and
    /// the loop tries again after its next pass.
    mutating func pauseCallReturned(succeeded: Bool) {
        guard let call else { return }
        self.call = nil
        if succeeded {
            applied.formUnion(call.pausedInside)
        } else {
            applied = call.before.union(call.pausedInside)
        }
    }

    /// A callback paused a direction (it returned `CURL_WRITEFUNC_PAUSE` or `CURL_READFUNC_PAUSE`):
    /// libcurl has it paused now, inside or outside a `curl_easy_pause` call.
    mutating func callbackPaused(_ direction: PauseMask) {
        applied.insert(direction)
        if call != nil { call?.pausedInside.insert(direction) }
    }
}
