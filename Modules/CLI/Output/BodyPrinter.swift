import CourierCore
import Foundation
import HTTPTypes

/// Writes a response body to stdout: streamed as it arrives, or, for JSON that is to be
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
        if pretty ?? toTerminal, ContentType.isJSON(response.head.headerFields[.contentType]) {
            let (bytes, complete) = try await body.collect(upTo: Self.prettyLimit, progress: reporter)
            if complete, let formatted = JSONPrettyPrinter.format(bytes) {
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

/// A response body read chunk by chunk through one iterator (a streamed body can be read only
/// once), its failures wrapped as ``CourierCore/CourierError``s at stage
/// ``CourierCore/CourierError/Stage/responseBody`` that keep the exchange.
final class BodyReader {
    let response: Response
    private var iterator: Body.Iterator
    /// Bytes read so far, plus the offset it started with.
    private(set) var received: Int64

    /// A reader of `response`'s body; `offset` bytes count as already received (a resume).
    init(_ response: Response, offset: Int64 = 0) {
        self.response = response
        self.iterator = response.body.makeAsyncIterator()
        self.received = offset
    }

    /// The next chunk, or `nil` at the end.
    func next() async throws(CourierError) -> ArraySlice<UInt8>? {
        do {
            let chunk = try await iterator.next()
            if let chunk { received += Int64(chunk.count) }
            return chunk
        } catch {
            throw wrapped(error)
        }
    }

    /// Calls `handle` with each remaining chunk and `progress` with the running count.
    func forEachChunk(
        progress: ProgressReporter?,
        _ handle: (ArraySlice<UInt8>) throws(CLIError) -> Void
    ) async throws {
        do {
            while let chunk = try await next() {
                try handle(chunk)
                progress?.update(completed: received)
            }
        } catch {
            progress?.abandon()
            throw error
        }
    }

    /// Reads up to about `limit` bytes; `complete` is false when the body goes on past them
    /// (the rest is still to be read).
    func collect(upTo limit: Int, progress: ProgressReporter?) async throws(CourierError) -> (bytes: [UInt8], complete: Bool) {
        var bytes: [UInt8] = []
        do {
            while let chunk = try await next() {
                bytes.append(contentsOf: chunk)
                progress?.update(completed: received)
                if bytes.count > limit { return (bytes, false) }
            }
            return (bytes, true)
        } catch {
            progress?.abandon()
            throw error
        }
    }

    /// Reads and drops the rest of the body.
    func drain() async throws(CourierError) {
        while try await next() != nil {}
    }

    private func wrapped(_ error: any Error) -> CourierError {
        if let error = error as? CourierError { return error }
        return CourierError(stage: .responseBody, request: response.request, response: response.head, underlyingError: error)
    }
}

/// Whether a body is text a terminal can show.
enum BinaryDetection {
    /// True when the first kilobyte of `bytes` holds a NUL or is not UTF-8. A chunk may end in
    /// the middle of a character, so an error in the last three bytes does not count.
    static func looksBinary(_ bytes: ArraySlice<UInt8>) -> Bool {
        let sample = bytes.prefix(1024)
        if sample.contains(0) { return true }
        var decoder = UTF8()
        var iterator = sample.makeIterator()
        var consumed = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                consumed += scalar.value < 0x80 ? 1 : scalar.value < 0x800 ? 2 : scalar.value < 0x10000 ? 3 : 4
            case .emptyInput:
                return false
            case .error:
                return consumed < sample.count - 3
            }
        }
    }
}

/// Media types, for the choices that depend on them.
enum ContentType {
    /// True for `application/json`, `text/json` and any `…+json`.
    static func isJSON(_ value: String?) -> Bool {
        guard let value else { return false }
        let mime = value.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return mime == "application/json" || mime == "text/json" || mime.hasSuffix("+json")
    }
}
