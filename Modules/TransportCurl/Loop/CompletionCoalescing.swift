/// Whether the curl thread resumes the callers of the transfers a pass finished at once, or holds them for a
/// moment so that more finish and their callers are resumed together. Pure (no curl, no clock of its own), so it
/// is tested without sockets; the loop thread owns it.
///
/// Why hold at all: resuming a caller that waits on Swift's shared pool puts a job on the pool, and a job that
/// finds the pool's threads asleep wakes one: a system call, a context switch and, on a virtual machine whose
/// idle processor halts, an exit to the hypervisor. One wake-up serves every job queued before the woken thread
/// runs out of work, so callers resumed one or two at a time pay it each, and callers resumed eight at a time
/// share it. At 16 calls in flight from the shared pool, holding for up to 100 µs took the context switches per call
/// from about 0.9 to 0.5 and the CPU per call down by 7–30 % (docs/performance.md, "Sixteenth pass").
///
/// When: only while at least ``minimumInFlight`` other transfers on the wire may end soon (their callers wait for
/// their heads, or little is left of their bodies), so more answers are coming; never longer than ``window`` from
/// the first transfer held; and as soon as ``batch`` are waiting, all are resumed. A call with few others in flight
/// (one at a time, or a handful to slow servers, or beside streams whose heads were handed over) is resumed at once,
/// and a held call waits at most the window: a fraction of what a call takes when that many are in flight.
struct CompletionCoalescing {
    /// The longest a finished transfer is held; `.zero` turns holding off.
    let window: Duration
    /// Transfers on the wire that may end soon needed to hold: with fewer, no answer may come within the window.
    static let minimumInFlight = 4
    /// Finished transfers that are resumed at once, held ones included: enough to share a wake-up well.
    static let batch = 8

    /// When the transfers held now must be resumed, or nil while none are held.
    private(set) var deadline: ContinuousClock.Instant?

    init(window: Duration) {
        self.window = max(.zero, window)
    }

    /// What to do at the end of a pass.
    enum Decision: Equatable {
        /// Resume every finished transfer's caller now.
        case resume
        /// Keep the finished transfers whose callers can wait, and run passes until this instant at the latest.
        case hold(until: ContinuousClock.Instant)
    }

    /// Forgets the deadline once nothing is held (the last held transfer was resumed by a cancellation).
    mutating func forgetDeadline() {
        deadline = nil
    }

    /// Decides at the end of a pass, given how many finished transfers' callers could wait (those held before
    /// and those this pass finished) and how many transfers are still on the wire.
    mutating func decide(waiting: Int, inFlight: Int, now: ContinuousClock.Instant) -> Decision {
        guard window > .zero, waiting > 0, waiting < Self.batch, inFlight >= Self.minimumInFlight else {
            deadline = nil
            return .resume
        }
        let end = deadline ?? now + window
        guard now < end else {
            deadline = nil
            return .resume
        }
        deadline = end
        return .hold(until: end)
    }
}
