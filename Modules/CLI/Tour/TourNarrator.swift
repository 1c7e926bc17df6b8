/// How the tour prints: headings in bold on a terminal, details indented, a check mark or a
/// cross per step, all on stdout. Details, results and plain lines quote what the server sent
/// (reason phrases, echoed JSON, errors), so on a terminal they are escaped (``TerminalText``);
/// the narrator's own styling is added after.
struct TourNarrator: Sendable {
    let styled: Bool
    static let indent = "     "

    init(styled: Bool = Console.Stream.output.isTerminal) {
        self.styled = styled
    }

    func heading(_ number: Int, of total: Int, _ title: String) {
        let label = "\(number)/\(total)"
        let text = label + String(repeating: " ", count: max(1, 5 - label.count)) + title
        Console.out("\n" + (styled ? "\u{1B}[1m\(text)\u{1B}[0m" : text) + "\n")
    }

    func paragraph(_ text: String) {
        for line in Self.wrap(text, width: 92) { Console.out(Self.indent + line + "\n") }
    }

    func command(_ text: String) {
        Console.out(Self.indent + (styled ? "\u{1B}[2m$ \(text)\u{1B}[0m" : "$ \(text)") + "\n")
    }

    func detail(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            Console.out(Self.indent + shown(String(line)) + "\n")
        }
    }

    func success(_ text: String) {
        Console.out(Self.indent + (styled ? "\u{1B}[32m✓\u{1B}[0m " : "✓ ") + shown(text) + "\n")
    }

    func failure(_ text: String) {
        Console.out(Self.indent + (styled ? "\u{1B}[31m✗\u{1B}[0m " : "✗ ") + shown(text) + "\n")
    }

    func plain(_ text: String) { Console.out(shown(text) + "\n") }

    /// `text` escaped when the narration goes to a terminal (`styled` is set exactly then).
    func shown(_ text: String) -> String {
        styled ? TerminalText.escaped(text) : text
    }

    /// `text` broken into lines of at most `width` characters, at spaces.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }
}
