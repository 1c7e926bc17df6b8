/// The way a body goes to stdout. To a file or a pipe every byte is written as received. To a
/// terminal, chunks are judged first (``TerminalText/BodyCheck``): from the first chunk that is
/// binary or holds control characters on, nothing more is written and a note says why, in
/// httpie's words for binary data:
///
/// ```text
/// +-----------------------------------------+
/// | NOTE: binary data not shown in terminal |
/// +-----------------------------------------+
/// ```
/// The rest of the body is still read (the caller goes on calling ``write(_:)``), so progress and
/// the exit status stay as they would be.
struct BodyOutput {
    /// True when stdout is a terminal.
    let terminal: Bool
    /// Why the body stopped being shown, once it did.
    private(set) var withheld: TerminalText.BodyVerdict?
    private let sink: (ArraySlice<UInt8>) -> Void
    private var check = TerminalText.BodyCheck()
    private var last: UInt8?

    /// Output to stdout, or to `sink` (tests).
    init(terminal: Bool, sink: @escaping (ArraySlice<UInt8>) -> Void = { Console.write($0, to: .output) }) {
        self.terminal = terminal
        self.sink = sink
    }

    /// Writes `chunk`, unless the terminal must not see it.
    mutating func write(_ chunk: ArraySlice<UInt8>) {
        guard withheld == nil, !chunk.isEmpty else { return }
        if terminal {
            let verdict = check.next(chunk)
            if verdict != .text {
                withheld = verdict
                return
            }
        }
        sink(chunk)
        last = chunk.last
    }

    /// Ends the body: on a terminal, the note when part of it was withheld, else a newline when
    /// the body did not end its last line, so the prompt starts on its own line.
    func finish() {
        guard terminal else { return }
        if let last, last != UInt8(ascii: "\n") { sink(ArraySlice("\n".utf8)) }
        if let withheld { sink(ArraySlice(Self.note(for: withheld, afterText: last != nil).utf8)) }
    }

    /// What a terminal shows instead of a withheld body; `afterText` when the body's beginning
    /// was shown.
    static func note(for verdict: TerminalText.BodyVerdict, afterText: Bool) -> String {
        switch verdict {
        case .text:
            return ""
        case .binary:
            return box(["NOTE: binary data not shown in terminal"])
        case .controlCharacters:
            return box([
                afterText
                    ? "NOTE: the rest of the body holds terminal control characters, not shown"
                    : "NOTE: the body holds terminal control characters, not shown",
                "To see it: -o FILE, or redirect stdout (courier ... > FILE)",
            ])
        }
    }

    /// `lines` framed as httpie frames its note.
    static func box(_ lines: [String]) -> String {
        let width = lines.map(\.count).max() ?? 0
        let rule = "+" + String(repeating: "-", count: width + 2) + "+\n"
        let body = lines.map { "| " + $0 + String(repeating: " ", count: width - $0.count) + " |\n" }.joined()
        return rule + body + rule
    }
}
