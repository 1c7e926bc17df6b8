import FoundationEssentials

extension Body {
    /// Makes a single-pass body fed by a writer: the way a transport hands out a response body
    /// while bytes are still arriving.
    ///
    /// ```swift
    /// let (body, writer) = Body.makeStream(length: .unknown)
    /// writer.yield(ArraySlice(chunk))
    /// writer.finish()                  // or writer.finish(throwing: error)
    /// ```
    /// The writer buffers without bound; a transport that needs backpressure builds its own
    /// sequence and uses ``init(_:length:iterationBehavior:)``.
    public static func makeStream(length: Length = .unknown) -> (body: Body, writer: Writer) {
        let (stream, continuation) = AsyncThrowingStream<ArraySlice<UInt8>, any Error>.makeStream()
        let body = Body(stream, length: length, iterationBehavior: .single)
        return (body, Writer(continuation: continuation))
    }

    /// The producing end of a body made with ``makeStream(length:)``.
    public struct Writer: Sendable {
        let continuation: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation

        /// Appends a chunk.
        public func yield(_ chunk: ArraySlice<UInt8>) {
            continuation.yield(chunk)
        }

        /// Appends bytes.
        public func yield(_ data: Data) {
            continuation.yield(ArraySlice(data))
        }

        /// Ends the body; readers see the end, or `error` if one is given.
        public func finish(throwing error: (any Error)? = nil) {
            continuation.finish(throwing: error)
        }

        /// Runs `handler` once the reader stops reading early or the body is dropped,
        /// so the producer can stop too.
        public func onTermination(_ handler: @escaping @Sendable () -> Void) {
            continuation.onTermination = { _ in handler() }
        }
    }
}
