/// When the transfers in the multi handle are due to have ended by their request deadline, and which of them
/// are overdue: libcurl's own timeout has had a grace period to end them and has not. Pure (no curl, no clock
/// of its own), so it is tested without sockets; the loop thread owns it.
///
/// Why Courier checks what libcurl already times out: libcurl 7.88 parks a transfer that finds every
/// connection it may use busy (`CURLMOPT_MAX_HOST_CONNECTIONS`, `CURLMOPT_MAX_TOTAL_CONNECTIONS`) as "pending",
/// and checks a pending transfer's timeout only when a connection comes free. ``HostAdmission`` keeps the
/// transfers it can predict out of that state; the others (HTTPS that the server answers over HTTP/1.1,
/// calls through a proxy or a Unix socket, calls beyond the total limit) could still wait far past their
/// timeout. This watch fails them soon after it. A transfer libcurl does run ends at its deadline in libcurl
/// first (with libcurl's own error): the loop counts each limit from after the `curl_multi_perform` in which
/// libcurl started the transfer and its clock, and the watch waits ``grace`` longer still.
///
/// Deadlines are kept only as the earliest one: the loop looks through its transfers when that passes (with
/// the grace), not on every pass, so a call costs one comparison here.
struct OverdueWatch {
    /// How long after its deadline a transfer counts as overdue. Long enough that libcurl, whose own timer
    /// for the same deadline is checked in the pass before the watch's, always ends a transfer it runs first;
    /// short against any request timeout worth setting.
    static let grace: Duration = .milliseconds(100)

    /// No watched transfer's deadline is before this; a transfer that left may leave it early, never late.
    private(set) var earliestDeadline: ContinuousClock.Instant?

    /// When the loop must look next, at the latest, even if nothing else wakes it.
    var nextCheck: ContinuousClock.Instant? { earliestDeadline.map { $0 + Self.grace } }

    /// Starts watching a transfer whose request must end by `deadline`.
    mutating func watch(deadline: ContinuousClock.Instant) {
        if earliestDeadline.map({ deadline < $0 }) ?? true { earliestDeadline = deadline }
    }

    /// Whether some transfer may be overdue at `now`: only then is ``overdue(in:deadline:at:)`` worth its walk.
    func mayBeOverdue(at now: ContinuousClock.Instant) -> Bool {
        guard let check = nextCheck else { return false }
        return check <= now
    }

    /// The transfers of `transfers` overdue at `now` (by `deadline(of:)`, nil for no deadline), in their
    /// order; remembers the earliest deadline of the others.
    mutating func overdue<Transfers: Sequence>(
        in transfers: Transfers,
        deadline: (Transfers.Element) -> ContinuousClock.Instant?,
        at now: ContinuousClock.Instant
    ) -> [Transfers.Element] {
        var overdue: [Transfers.Element] = []
        var earliest: ContinuousClock.Instant?
        for transfer in transfers {
            guard let due = deadline(transfer) else { continue }
            if due + Self.grace <= now {
                overdue.append(transfer)
            } else if earliest.map({ due < $0 }) ?? true {
                earliest = due
            }
        }
        earliestDeadline = earliest
        return overdue
    }
}
