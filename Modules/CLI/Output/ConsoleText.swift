/// Output put together from the command line's own words and server-controlled parts, for one
/// stream. On a terminal the server's parts are escaped (``TerminalText``); elsewhere they are
/// kept byte for byte, so `courier --headers URL > head.txt` records exactly what was received,
/// bytes that are not UTF-8 included.
///
/// ```swift
/// var text = ConsoleText(terminal: true)
/// text.append("X-Title: ")
/// text.append(untrusted: "\u{1B}]0;pwned\u{07}")
/// text.append("\n")
/// text.bytes  // the UTF-8 of "X-Title: \x1b]0;pwned\x07\n"
/// ```
struct ConsoleText {
    /// True when the text is for a terminal.
    let terminal: Bool
    /// The text so far.
    private(set) var bytes: [UInt8] = []

    /// Empty text for a terminal or for a file or pipe.
    init(terminal: Bool) {
        self.terminal = terminal
    }

    /// Adds the command line's own text, as it is.
    mutating func append(_ own: String) {
        bytes.append(contentsOf: own.utf8)
    }

    /// Adds text that came from the server (or any text `courier` did not write itself).
    mutating func append(untrusted text: String) {
        bytes.append(contentsOf: (terminal ? TerminalText.escaped(text) : text).utf8)
    }

    /// Adds bytes that came from the server, e.g. a header value as received.
    mutating func append(untrusted raw: some Collection<UInt8>) {
        if terminal {
            bytes.append(contentsOf: TerminalText.escaped(bytes: raw).utf8)
        } else {
            bytes.append(contentsOf: raw)
        }
    }
}

extension Console.Stream {
    /// `text` the way this stream may show it: escaped (``TerminalText``) on a terminal, as it
    /// is elsewhere. For a server-chosen file name or URL inside a line `courier` writes.
    func displayable(_ text: String) -> String {
        isTerminal ? TerminalText.escaped(text) : text
    }
}
