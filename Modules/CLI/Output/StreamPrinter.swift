import CourierCore
import CourierStreaming
import HTTPTypes

/// `--stream`: the body printed line by line as each line arrives (`tail -f` for a response), event streams and
/// NDJSON included; with pretty-printing, each JSON line is indented as it comes. On a terminal a line holding
/// control characters or binary data ends what is shown (``BodyOutput``); the rest is still read.
struct StreamPrinter {
    /// `--pretty` / `--no-pretty`; `nil` means "when stdout is a terminal".
    let pretty: Bool?
    /// `-q`: read the body, print nothing.
    let quiet: Bool

    /// Lines up to 16 MiB: a stream is text, and one without line breaks must not take the memory.
    static let maximumLineLength = 16 << 20

    func print(_ response: Response) async throws {
        let toTerminal = Console.Stream.output.isTerminal
        var output = BodyOutput(terminal: toTerminal)
        let type = response.head.headerFields[.contentType]
        let mime = ContentType.mimeType(type)
        let json = (pretty ?? toTerminal) && (ContentType.isJSON(type) || mime == "application/x-ndjson" || mime == "application/jsonl")
        for try await line in response.body.lines(maximumLength: Self.maximumLineLength) {
            if quiet { continue }
            if json, !line.isEmpty, let formatted = JSONPrettyPrinter.format(Array(line.utf8)) {
                output.write(formatted[...])
            } else {
                output.write(ArraySlice((line + "\n").utf8))
            }
            try Console.checkOutput()
        }
        if !quiet { output.finish() }
        try Console.checkOutput()
    }
}
