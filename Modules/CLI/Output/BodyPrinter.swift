import CourierCore
import HTTPTypes

/// Writes a response body to stdout: streamed as it arrives, or, for JSON and XML that are to be
/// pretty-printed, buffered and re-indented. On a terminal, binary bodies and bodies holding
/// control characters are not shown (``BodyOutput``); redirected, every byte is written.
struct BodyPrinter {
    /// `--pretty` / `--no-pretty`; `nil` means "when stdout is a terminal".
    let pretty: Bool?
    /// `--progress` / `--no-progress`; `nil` means the default rule (``ProgressPolicy``).
    let progress: Bool?
    /// `-q`: read the body, print nothing.
    let quiet: Bool

    /// Bodies above this are streamed as they are, even when pretty-printing was asked for.
    static let prettyLimit = 32 * 1024 * 1024

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
        var output = BodyOutput(terminal: toTerminal)
        if pretty ?? toTerminal, let prettyPrinter = Self.prettyPrinter(for: response.head.headerFields[.contentType]) {
            let (bytes, complete) = try await body.collect(upTo: Self.prettyLimit, progress: reporter)
            if complete, let formatted = prettyPrinter(bytes) {
                // The bar ends before the body shows. The formatted text is judged like any
                // body: a JSON string may hold U+009B unescaped.
                reporter?.finish()
                output.write(formatted[...])
                output.finish()
                try Console.checkOutput()
                return
            }
            output.write(bytes[...])
            if !complete {
                try await body.forEachChunk(progress: reporter) { chunk throws(CLIError) in
                    output.write(chunk)
                    try Console.checkOutput()
                }
            }
        } else {
            try await body.forEachChunk(progress: reporter) { chunk throws(CLIError) in
                output.write(chunk)
                try Console.checkOutput()
            }
        }
        reporter?.finish()
        output.finish()
        try Console.checkOutput()
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
}
