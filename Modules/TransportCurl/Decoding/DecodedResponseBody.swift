import CourierCore

/// A response body decoded from its content codings while it is read: the transport keeps the
/// compressed bytes (bounded by its response buffer) and the reader pulls decoded bytes out 64 KiB
/// at a time, so no ratio makes the transport hold more. Single pass unless its source is replayable.
struct DecodedResponseBody<Source: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Source.Element == ArraySlice<UInt8> {
    typealias Element = ArraySlice<UInt8>

    let source: Source
    /// In the order the server applied them, or why they cannot be decoded (thrown by the first read).
    let codings: Result<[ContentCoding], any Error>
    let limits: CurlTransport.Configuration.DecompressionLimits

    func makeAsyncIterator() -> Iterator {
        Iterator(source: source.makeAsyncIterator(), codings: codings, limits: limits)
    }

    struct Iterator: AsyncIteratorProtocol {
        private var source: Source.AsyncIterator
        /// Wire side first: the last coding applied is the first undone.
        private var stages: [DecodingStage] = []
        private var meter: DecompressionMeter
        private var failure: (any Error)?
        private let codings: Result<[ContentCoding], any Error>
        private var started = false

        init(source: Source.AsyncIterator, codings: Result<[ContentCoding], any Error>, limits: CurlTransport.Configuration.DecompressionLimits) {
            self.source = source
            self.codings = codings
            self.meter = DecompressionMeter(limits: limits)
        }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if let failure { throw failure }
            do {
                if !started {
                    started = true
                    stages = try codings.get().reversed().map { try DecodingStage(coding: $0) }
                }
                guard !stages.isEmpty else { return try await source.next() }
                guard let chunk = try await pull(stages.count - 1) else { return nil }
                try meter.decoded(chunk.count)
                return chunk
            } catch {
                failure = error   // a failed body stays failed
                throw error
            }
        }

        /// The next output of stage `index`, pulling input from the stage before it (or the wire).
        private mutating func pull(_ index: Int) async throws -> ArraySlice<UInt8>? {
            let stage = stages[index]
            while true {
                if let output = try stage.step() { return output }
                if stage.isDone { return nil }
                let input: ArraySlice<UInt8>?
                if index == 0 {
                    input = try await source.next()
                    if let input { meter.received(input.count) }
                } else {
                    input = try await pull(index - 1)
                }
                if let input { stage.feed(input) } else { stage.endInput() }
            }
        }
    }
}
