/// How long the curl thread keeps polling its sockets and command queue, without sleeping, once a pass leaves
/// it nothing to do. Pure (no curl, no clock of its own), so it is tested without sockets; the loop thread owns it.
///
/// Why poll at all: a small call wakes the curl thread twice (its command, then the server's answer) and a
/// thread that went to sleep a few microseconds before costs a wake-up, a context switch and, on a virtual
/// machine whose idle processor halts, an exit to the hypervisor: more than the rest of the call. A caller's next
/// request, or the server's answer, often comes within tens of microseconds; a thread still polling takes it at
/// once.
///
/// Why adaptively: polling is processor time spent waiting. The window follows what the last idle stretch showed,
/// as Linux's halt-polling idle driver (`cpuidle-haltpoll`) does for a processor: an event that came after the
/// window but within ``maximum`` doubles it (it starts at ``growStart``); an idle stretch longer than ``maximum``
/// halves it, so a transport that is idle or waits on slow servers soon polls not at all; one the window caught
/// leaves it as it is.
struct IdlePolling {
    /// The longest window; `.zero` turns polling off.
    let maximum: Duration
    /// The first window after polling paid off.
    static let growStart: Duration = .microseconds(10)

    /// How long to poll at the next idle stretch; `.zero` for none.
    private(set) var window: Duration = .zero

    init(maximum: Duration) {
        self.maximum = max(.zero, maximum)
    }

    /// Records an idle stretch: how long after the pass ended the next event (a command or socket activity;
    /// a timer of the loop's own counts as none) came, or how long the loop waited in all when none came.
    mutating func record(idle: Duration) {
        guard maximum > .zero else { return }
        if idle <= window { return }
        if idle <= maximum {
            window = min(maximum, max(window * 2, Self.growStart))
        } else {
            window = window / 2
            if window < Self.growStart { window = .zero }
        }
    }
}
