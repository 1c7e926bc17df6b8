import CourierCore

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
