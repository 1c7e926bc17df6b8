import CourierCore

extension Body {
    /// The body's lines as they arrive, in constant memory: split at LF or CR LF (terminators
    /// removed), a last line without a terminator included. A line longer than `maximumLength`
    /// bytes, or not valid UTF-8, ends the sequence with a ``CourierError`` holding a ``StreamError``.
    ///
    /// ```swift
    /// let response = try await session.send(HTTPRequest(method: .get, scheme: "https", authority: "logs.test", path: "/tail"))
    /// for try await line in response.body.lines() { print(line) }
    /// ```
    public func lines(maximumLength: Int = LineSequence.defaultMaximumLength) -> LineSequence {
        LineSequence(body: self, maximumLength: maximumLength)
    }
}

/// The lines of a ``Body``; see ``CourierCore/Body/lines(maximumLength:)``.
public struct LineSequence: AsyncSequence, Sendable {
    /// One line, its terminator removed.
    public typealias Element = String

    /// 1 MiB: longer than any sane line, small enough that a stream without line breaks cannot
    /// take the process's memory.
    public static let defaultMaximumLength = 1 << 20

    let body: Body
    /// The longest line accepted, in bytes.
    public let maximumLength: Int

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(body: body.makeAsyncIterator(), splitter: LineSplitter(terminators: .lineFeed, maximumLength: maximumLength))
    }

    /// Reads lines in the caller's task.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: RawLineIterator

        init(body: Body.Iterator, splitter: LineSplitter) {
            lines = RawLineIterator(body: body, splitter: splitter)
        }

        /// The next line, or `nil` at the end of the body.
        public mutating func next() async throws -> String? {
            guard let (bytes, number) = try await lines.next() else { return nil }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CourierError(stage: .responseBody, underlyingError: StreamError(.invalidUTF8, line: number))
            }
            return text
        }
    }
}

/// Lines as bytes with their numbers, pulled from a body: what ``LineSequence`` and
/// ``JSONLineSequence`` share.
struct RawLineIterator {
    private var body: Body.Iterator
    private var splitter: LineSplitter
    private var ready = Batch<([UInt8], Int)>()
    private var ended = false

    init(body: Body.Iterator, splitter: LineSplitter) {
        self.body = body
        self.splitter = splitter
    }

    /// The next line and its 1-based number, or `nil` at the end of the body.
    mutating func next() async throws -> ([UInt8], Int)? {
        while true {
            if let line = ready.next() { return line }
            if ended { return nil }
            let next: ArraySlice<UInt8>?
            do {
                next = try await body.next()
            } catch {
                // A transport's failure (a cut connection) reaches the reader as every call's does: a CourierError.
                ended = true
                throw CourierError.wrapping(error, stage: .responseBody, request: nil)
            }
            guard let chunk = next else {
                ended = true
                do throws(StreamError) {
                    if let last = try splitter.finish() { return (last, splitter.lineCount) }
                } catch {
                    throw CourierError(stage: .responseBody, underlyingError: error)
                }
                return nil
            }
            var number = splitter.lineCount
            do throws(StreamError) {
                var completed: [([UInt8], Int)] = []
                try splitter.append(chunk) { line in
                    number += 1
                    completed.append((Array(line), number))
                }
                ready.refill(completed)
            } catch {
                ended = true
                throw CourierError(stage: .responseBody, underlyingError: error)
            }
        }
    }
}
