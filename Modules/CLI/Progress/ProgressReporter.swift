import CourierCore

/// Draws a ``ProgressBar`` on stderr while a body moves, redrawn at most ten times a second.
///
/// On a terminal the line is redrawn in place (`\r`, erase to end of line). Elsewhere (a log, CI)
/// ``Style/milestones`` prints one line at each quarter instead, so logs stay readable.
/// `update` may be called from any thread.
final class ProgressReporter: Sendable {
    /// How the bar is drawn.
    enum Style: Sendable {
        /// One line redrawn in place.
        case redraw
        /// A line at 25, 50 and 75 % (or every 10 MiB when the total is unknown), then the summary.
        case milestones
    }

    private struct State {
        var start: ContinuousClock.Instant?
        var lastDraw: ContinuousClock.Instant?
        var offset: Int64 = 0
        var total: Int64?
        var completed: Int64 = 0
        var meter = RateMeter()
        var milestone = 0
        var finished = false
    }

    private let stream: Console.Stream
    private let style: Style
    private let prefix: String
    private let state = Locked(State())
    private static let interval = Duration.milliseconds(100)

    /// A reporter drawing on `stream`; `prefix` starts every line (e.g. two spaces of indent).
    init(stream: Console.Stream = .error, style: Style, prefix: String = "") {
        self.stream = stream
        self.style = style
        self.prefix = prefix
    }

    /// The style that suits `stream`: redraw on a terminal, milestones elsewhere.
    static func style(for stream: Console.Stream) -> Style {
        stream.isTerminal ? .redraw : .milestones
    }

    /// Starts timing. `offset` bytes were already there (a resumed download): they count in the
    /// percentage but not in the rate. `total` includes them.
    func start(offset: Int64 = 0, total: Int64?) {
        state.withLock {
            $0.start = .now
            $0.offset = offset
            $0.completed = offset
            $0.total = total
            $0.meter.record(bytes: 0, at: 0)
        }
    }

    /// `completed` bytes (offset included) have moved; redraws when the last draw is old enough.
    func update(completed: Int64, total: Int64? = nil) {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            let now = ContinuousClock.now
            if state.start == nil { state.start = now }
            if let total { state.total = total }
            state.completed = completed
            let elapsed = Self.seconds(now - (state.start ?? now))
            state.meter.record(bytes: completed - state.offset, at: elapsed)
            switch style {
            case .redraw:
                if let last = state.lastDraw, now - last < Self.interval { return nil }
                state.lastDraw = now
                return "\r" + prefix + Self.bar(state, elapsed: elapsed).render(width: stream.columns - prefix.count) + "\u{1B}[K"
            case .milestones:
                // The last quarter is the summary line's to print.
                let reached = Self.milestone(state)
                guard reached > state.milestone, state.total == nil || reached < 4 else { return nil }
                state.milestone = reached
                return prefix + Self.bar(state, elapsed: elapsed).render(width: 100) + "\n"
            }
        }
        if let line { Console.write(line, to: stream) }
    }

    /// Draws the final line (100 %, average rate, time taken) and ends it.
    func finish() {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            let now = ContinuousClock.now
            let elapsed = Self.seconds(now - (state.start ?? now))
            var bar = Self.bar(state, elapsed: elapsed)
            bar.finished = true
            // The summary's average rate counts this run's bytes only, not a resumed file's.
            bar.rate = elapsed > 0 ? Double(state.completed - state.offset) / elapsed : nil
            let text = bar.render(width: style == .redraw ? stream.columns - prefix.count : 100)
            return (style == .redraw ? "\r" : "") + prefix + text + (style == .redraw ? "\u{1B}[K\n" : "\n")
        }
        if let line { Console.write(line, to: stream) }
    }

    /// Ends the line without a summary (the transfer failed).
    func abandon() {
        let wasDrawn: Bool = state.withLock { state in
            defer { state.finished = true }
            return !state.finished && state.lastDraw != nil && style == .redraw
        }
        if wasDrawn { Console.write("\n", to: stream) }
    }

    private static func bar(_ state: State, elapsed: Double) -> ProgressBar {
        ProgressBar(completed: state.completed, total: state.total, rate: state.meter.bytesPerSecond, elapsed: elapsed)
    }

    /// Quarters reached (1–4) with a known total; with an unknown one, 10 MiB steps.
    private static func milestone(_ state: State) -> Int {
        if let total = state.total, total > 0 {
            return Int(min(4, (state.completed * 4) / total))
        }
        return Int(state.completed / (10 * 1024 * 1024))
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
