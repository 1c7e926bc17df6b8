import FoundationEssentials
import Synchronization

/// A stream of bytes: the body of a request or a response.
///
/// One type serves both directions. A body knows whether its total ``length`` is known up front
/// (a transport then sends `Content-Length`, otherwise chunked) and whether it can be read more than
/// once (``iterationBehavior``): a `.multiple` body can be replayed for a redirect or a retry, a
/// `.single` one cannot, and a second read throws ``BodyError/notReplayable``.
///
/// ```swift
/// let small = Body("hello")                      // replayable, length known
/// let file = try Body(contentsOfFileAt: "/tmp/big.iso") // read lazily, replayable
/// let bytes = try await response.body.collect(upTo: 1 << 20) // buffering always takes a bound
/// ```
public final class Body: AsyncSequence, Sendable {
    /// One piece of a body as it travels.
    public typealias Element = ArraySlice<UInt8>
    /// Errors thrown while reading.
    public typealias Failure = any Error

    /// The total length of a body, when it is known before it is read.
    public enum Length: Sendable, Hashable {
        /// The length is unknown until the stream ends.
        case unknown
        /// Exactly this many bytes.
        case known(Int64)
    }

    /// Whether a body can be read once or many times.
    public enum IterationBehavior: Sendable, Hashable {
        /// Only one iteration is possible; a second one throws ``BodyError/notReplayable``.
        case single
        /// Every iteration starts again from the first byte.
        case multiple
    }

    /// The total length, when known.
    public let length: Length
    /// Whether the body can be read more than once.
    public let iterationBehavior: IterationBehavior

    private let storage: Storage
    private let iterated = Atomic<Bool>(false)
    /// The pieces of a body made by ``init(segments:chunkSize:)`` or
    /// ``init(contentsOfFileAt:chunkSize:)``, so a transport can copy memory and read files
    /// straight into its send buffer instead of iterating; `nil` for other bodies.
    public let segments: [Segment]?

    /// The most bytes a transport should send from one read of this body, when the body asks
    /// for a limit (a throttled upload does: each read is one packet); `nil` for no limit.
    public let maximumReadSize: Int?

    /// The file a body made by ``init(contentsOfFileAt:chunkSize:)`` reads from its first byte;
    /// `nil` for other bodies.
    public var filePath: String? {
        guard let segments, segments.count == 1, case .file(let path, 0, _) = segments[0] else { return nil }
        return path
    }

    enum Storage: Sendable {
        case bytes(Data)
        case producer(@Sendable () -> Iterator.Next)
    }

    init(
        storage: Storage, length: Length, iterationBehavior: IterationBehavior,
        segments: [Segment]? = nil, maximumReadSize: Int? = nil
    ) {
        self.storage = storage
        self.length = length
        self.iterationBehavior = iterationBehavior
        self.segments = segments
        self.maximumReadSize = maximumReadSize.map { Swift.max(1, $0) }
    }

    /// A body holding these bytes: known length, replayable.
    public convenience init(_ data: Data) {
        self.init(storage: .bytes(data), length: .known(Int64(data.count)), iterationBehavior: .multiple)
    }

    /// A body holding these bytes: known length, replayable.
    public convenience init(_ bytes: some Sequence<UInt8>) {
        self.init(Data(bytes))
    }

    /// A body holding the UTF-8 bytes of a string: known length, replayable.
    public convenience init(_ string: some StringProtocol) {
        self.init(Data(string.utf8))
    }

    /// An empty body: length zero, replayable.
    public static var empty: Body { Body(Data()) }

    /// A body read from an asynchronous sequence of byte chunks.
    ///
    /// - Parameters:
    ///   - sequence: The chunks. Pass `.multiple` only if iterating the sequence again starts over.
    ///   - length: The total length when known; a transport then sends `Content-Length`. The curl transport holds
    ///     the sequence to it: it sends nothing past the length, a sequence that ends short fails the call with
    ///     ``BodyError/lengthMismatch(declared:produced:)``, and so does one that produces more before the exchange
    ///     has ended (a length of 0 is not read at all).
    ///   - iterationBehavior: Whether `sequence` can be iterated more than once.
    ///   - maximumReadSize: The most bytes a transport should send from one read (see
    ///     ``maximumReadSize``); `nil` for no limit.
    public convenience init<Chunks: AsyncSequence & Sendable>(
        _ sequence: Chunks,
        length: Length,
        iterationBehavior: IterationBehavior,
        maximumReadSize: Int? = nil
    ) where Chunks.Element == ArraySlice<UInt8> {
        self.init(
            storage: .producer {
                var iterator = sequence.makeAsyncIterator()
                return Iterator.Next { try await iterator.next() }
            },
            length: length,
            iterationBehavior: iterationBehavior,
            maximumReadSize: maximumReadSize
        )
    }

    /// The bytes when the body was built from memory, without reading it; `nil` for a stream.
    public var bufferedBytes: Data? {
        if case .bytes(let data) = storage { return data }
        return nil
    }

    /// Starts an iteration. A `.single` body may be iterated once; the second iterator throws on
    /// its first `next()`.
    public func makeAsyncIterator() -> Iterator {
        if iterationBehavior == .single, iterated.exchange(true, ordering: .relaxed) {
            return Iterator(next: Iterator.Next { throw BodyError.notReplayable })
        }
        switch storage {
        case .bytes(let data):
            var delivered = data.isEmpty
            return Iterator(next: Iterator.Next {
                if delivered { return nil }
                delivered = true
                return ArraySlice(data)
            })
        case .producer(let make):
            return Iterator(next: make())
        }
    }

    /// True when a `.single` body has already been handed out for reading.
    public var hasBeenIterated: Bool {
        iterationBehavior == .single && iterated.load(ordering: .relaxed)
    }

    /// The iterator of a ``Body``.
    public struct Iterator: AsyncIteratorProtocol {
        /// The type-erased pull function behind an iterator.
        struct Next {
            let pull: () async throws -> ArraySlice<UInt8>?
            init(_ pull: @escaping () async throws -> ArraySlice<UInt8>?) { self.pull = pull }
        }

        private let next: Next

        init(next: Next) { self.next = next }

        /// The next chunk, or `nil` at the end of the body.
        public mutating func next() async throws -> ArraySlice<UInt8>? {
            try await next.pull()
        }
    }
}

extension Body: CustomStringConvertible {
    /// A short description: length and replayability, never the bytes.
    public var description: String {
        let size: String
        switch length {
        case .known(let count): size = "\(count) bytes"
        case .unknown: size = "unknown length"
        }
        return "Body(\(size), \(iterationBehavior == .multiple ? "replayable" : "single pass"))"
    }
}
