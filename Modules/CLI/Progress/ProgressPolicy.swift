import CourierCore

/// When `courier` shows a progress bar, and how.
enum ProgressPolicy {
    /// Bodies above this show a bar by default (CLI.md: "over 1 MiB").
    static let threshold: Int64 = 1024 * 1024

    /// True when the bar is on: as asked, or by default when stderr is a terminal, the body does
    /// not go to that same terminal (a bar would tear it), and it is known to be over 1 MiB.
    static func isOn(explicit: Bool?, length: Body.Length, stderrIsTerminal: Bool, bodyGoesToTerminal: Bool) -> Bool {
        if let explicit { return explicit }
        guard stderrIsTerminal, !bodyGoesToTerminal, case .known(let count) = length else { return false }
        return count > threshold
    }

    /// A started reporter on stderr when the bar is on, else `nil`.
    static func reporter(explicit: Bool?, length: Body.Length, bodyGoesToTerminal: Bool, offset: Int64 = 0) -> ProgressReporter? {
        let stderr = Console.Stream.error
        guard isOn(explicit: explicit, length: length, stderrIsTerminal: stderr.isTerminal, bodyGoesToTerminal: bodyGoesToTerminal) else {
            return nil
        }
        let reporter = ProgressReporter(stream: stderr, style: ProgressReporter.style(for: stderr))
        var total: Int64?
        if case .known(let count) = length { total = offset + count }
        reporter.start(offset: offset, total: total)
        return reporter
    }
}
