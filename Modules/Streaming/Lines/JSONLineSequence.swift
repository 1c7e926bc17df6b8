import CourierCore
import FoundationEssentials

extension Body {
    /// The body as newline-delimited JSON (NDJSON, JSON Lines): each non-blank line decoded as
    /// `Value` by `decoder`, as it arrives, in constant memory. A line that does not decode ends the
    /// sequence with a ``CourierError`` (stage ``CourierError/Stage/responseSerialization``) whose
    /// ``StreamError`` names the line.
    ///
    /// ```swift
    /// struct Tick: Decodable, Sendable { var n: Int }
    /// for try await tick in response.body.jsonLines(of: Tick.self) { print(tick.n) }
    /// ```
    public func jsonLines<Value: Decodable & Sendable>(
        of type: Value.Type,
        decoder: JSONDecoder = JSONDecoder(),
        maximumLength: Int = LineSequence.defaultMaximumLength
    ) -> JSONLineSequence<Value> {
        JSONLineSequence(body: self, decoder: decoder, maximumLength: maximumLength)
    }
}

/// The decoded lines of an NDJSON ``Body``; see ``CourierCore/Body/jsonLines(of:decoder:maximumLength:)``.
public struct JSONLineSequence<Value: Decodable & Sendable>: AsyncSequence, Sendable {
    /// One decoded line.
    public typealias Element = Value

    let body: Body
    let decoder: JSONDecoder
    /// The longest line accepted, in bytes.
    public let maximumLength: Int

    /// Starts reading the body.
    public func makeAsyncIterator() -> Iterator {
        Iterator(
            lines: RawLineIterator(body: body.makeAsyncIterator(), splitter: LineSplitter(terminators: .lineFeed, maximumLength: maximumLength)),
            decoder: decoder
        )
    }

    /// Reads and decodes lines in the caller's task.
    public struct Iterator: AsyncIteratorProtocol {
        var lines: RawLineIterator
        let decoder: JSONDecoder

        /// The next value, or `nil` at the end of the body. Blank lines are skipped.
        public mutating func next() async throws -> Value? {
            while let (bytes, number) = try await lines.next() {
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                do {
                    return try decoder.decode(Value.self, from: Data(bytes))
                } catch {
                    throw CourierError(stage: .responseSerialization, underlyingError: StreamError(.invalidJSONLine, line: number, underlyingError: error))
                }
            }
            return nil
        }
    }
}
