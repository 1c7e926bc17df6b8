import CourierCore
import FoundationEssentials

/// The events of a body, parsed while it arrives: an `AsyncSequence` of ``XMLEvent``s.
///
/// Made by ``XMLStream/events(in:options:charset:maximumBodySize:)``. Reading pulls the body
/// one chunk at a time and parses it in pieces of at most 64 KiB, so memory stays bounded
/// whatever the document's size, and a slow reader slows the transfer (the transport's
/// backpressure) rather than buffering. Events before an error are delivered, then the error is
/// thrown: an ``XMLError``, or the body's own error (e.g. a transport failure).
///
/// Single pass, like the body it reads.
public struct XMLEventSequence: AsyncSequence, Sendable {
    /// An event.
    public typealias Element = XMLEvent
    /// ``XMLError`` or the body's error.
    public typealias Failure = any Error

    /// `nil`: nothing to parse (a response that validation turned away without an error).
    let body: Body?
    let options: XMLParseOptions
    let charset: String?
    let maximumBodySize: Int?

    /// Starts reading.
    public func makeAsyncIterator() -> Iterator {
        Iterator(sequence: self)
    }

    /// Reads the events of an ``XMLEventSequence``.
    public struct Iterator: AsyncIteratorProtocol {
        private let sequence: XMLEventSequence
        private var chunks: Body.Iterator?
        private var parser: PushParser?
        private var buffer: [XMLEvent] = []
        private var index = 0
        private var pending: ArraySlice<UInt8> = []
        private var received = 0
        private var failure: (any Error)?
        private var finished = false

        init(sequence: XMLEventSequence) {
            self.sequence = sequence
            finished = sequence.body == nil
        }

        /// The next event, or `nil` after the last one.
        public mutating func next() async throws -> XMLEvent? {
            while true {
                if index < buffer.count {
                    index += 1
                    return buffer[index - 1]
                }
                if let failure {
                    self.failure = nil
                    finished = true
                    throw failure
                }
                if finished { return nil }
                do {
                    try await advance()
                } catch {
                    finished = true
                    throw error
                }
            }
        }

        /// Parses the next piece of the body (reading a chunk when none is pending), or ends
        /// the document at the end of the body.
        private mutating func advance() async throws {
            index = 0
            buffer.removeAll(keepingCapacity: true)
            let parser = try self.parser ?? start()
            if pending.isEmpty {
                guard let chunk = try await chunks?.next() else {
                    do { try parser.finish() } catch { failure = error }
                    parser.state.takeEvents(into: &buffer)
                    finished = true
                    return
                }
                received += chunk.count
                if let limit = sequence.maximumBodySize, received > limit { throw XMLError.tooLarge(limit: limit) }
                pending = chunk
            }
            let piece = pending.prefix(PushParser.pieceSize)
            pending = pending.dropFirst(piece.count)
            var failure: XMLError?
            piece.withUnsafeBytes { raw in
                do throws(XMLError) { try parser.feed(raw) } catch { failure = error }
            }
            self.failure = failure
            parser.state.takeEvents(into: &buffer)
        }

        private mutating func start() throws -> PushParser {
            guard let body = sequence.body else { throw XMLError(reason: .empty, message: "Document is empty") }
            if let limit = sequence.maximumBodySize, case .known(let length) = body.length, length > limit {
                throw XMLError.tooLarge(limit: limit)
            }
            let parser = try PushParser(mode: .events, options: sequence.options, charset: sequence.charset)
            self.parser = parser
            chunks = body.makeAsyncIterator()
            return parser
        }
    }
}
