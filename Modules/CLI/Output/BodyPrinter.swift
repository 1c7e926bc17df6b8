import CourierCore
import HTTPTypes

/// Writes a response body to stdout: streamed as it arrives, or, for JSON and XML that are to be
/// pretty-printed, buffered and re-indented. On a terminal, binary bodies are not shown.
struct BodyPrinter {
    /// `--pretty` / `--no-pretty`; `nil` means "when stdout is a terminal".
    let pretty: Bool?
    /// `--progress` / `--no-progress`; `nil` means the default rule (``ProgressPolicy``).
    let progress: Bool?
    /// `-q`: read the body, print nothing.
    let quiet: Bool

    /// Bodies above this are streamed as they are, even when pretty-printing was asked for.
    static let prettyLimit = 32 * 1024 * 1024
    /// What a terminal shows instead of binary data (httpie's wording).
    static let binaryNotice = """
        +-----------------------------------------+
        | NOTE: binary data not shown in terminal |
        +-----------------------------------------+

        """

    func print(_ response: Response) async throws {
        let body = BodyReader(response)
        if quiet {
            try await body.drain()
            return
        }
        let toTerminal = Console.Stream.output.isTerminal
        let reporter = ProgressPolicy.reporter(
            explicit: progress, length: response.body.length, bodyGoesToTerminal: toTerminal
        )
        if pretty ?? toTerminal, let prettyPrinter = Self.prettyPrinter(for: response.head.headerFields[.contentType]) {
            let (bytes, complete) = try await body.collect(upTo: Self.prettyLimit, progress: reporter)
            if complete, let formatted = prettyPrinter(bytes) {
                reporter?.finish()
                Console.write(formatted, to: .output)
                return
            }
            Console.write(bytes, to: .output)
            if !complete {
                try await stream(body, reporter: reporter, toTerminal: toTerminal, lastByte: bytes.last)
                return
            }
            reporter?.finish()
            endLine(after: bytes.last, toTerminal: toTerminal)
            return
        }
        try await stream(body, reporter: reporter, toTerminal: toTerminal, lastByte: nil)
    }

    /// How to re-indent a body of this `Content-Type`, if it is one `--pretty` formats.
    static func prettyPrinter(for contentType: String?) -> (([UInt8]) -> [UInt8]?)? {
        if ContentType.isJSON(contentType) { return { JSONPrettyPrinter.format($0) } }
        if ContentType.isXML(contentType) {
            let charset = ContentType.charset(contentType)
            return { XMLPrettyPrinter.format($0, charset: charset) }
        }
        return nil
    }

    private func stream(_ body: BodyReader, reporter: ProgressReporter?, toTerminal: Bool, lastByte: UInt8?) async throws {
        var last = lastByte
        var first = lastByte == nil
        var binary = false
        try await body.forEachChunk(progress: reporter) { chunk in
            if first, toTerminal, BinaryDetection.looksBinary(chunk) {
                binary = true
            }
            first = false
            if binary { return }
            Console.write(chunk, to: .output)
            if let byte = chunk.last { last = byte }
        }
        reporter?.finish()
        if binary {
            Console.write(Self.binaryNotice, to: .output)
        } else {
            endLine(after: last, toTerminal: toTerminal)
        }
    }

    /// On a terminal, a body that does not end its last line gets a newline, so the prompt
    /// starts on its own line.
    private func endLine(after last: UInt8?, toTerminal: Bool) {
        if toTerminal, let last, last != UInt8(ascii: "\n") { Console.out("\n") }
    }
}
