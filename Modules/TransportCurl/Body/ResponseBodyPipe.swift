import CourierCore

/// Carries response bytes from the curl thread to the reader, with backpressure: above the high
/// watermark the write callback pauses the transfer; once the reader has taken the bytes, the
/// transfer continues.
///
/// A struct around its lock's one heap block: copies are the same pipe, as references to a class would be, and a
/// transfer makes one allocation for its pipe rather than two (an object, and the lock's block).
struct ResponseBodyPipe: Sendable {
    enum Ending: Sendable {
        case finished
        case failed(any Error)
    }

    private struct State: Sendable {
        var chunks: [ArraySlice<UInt8>] = []
        var buffered = 0
        var ending: Ending?
        var waiter: CheckedContinuation<[ArraySlice<UInt8>], any Error>?
        var backpressured = false
        var readerGone = false
    }

    private let state = Locked(State())
    let highWatermark: Int

    /// A pipe that holds up to `highWatermark` bytes (a negative one counts as 0: a chunk at a time). Below 0 the
    /// point where a paused transfer resumes (half the mark) would be below any count of bytes, and a transfer paused
    /// for its reader never resumed.
    init(highWatermark: Int) {
        self.highWatermark = max(0, highWatermark)
    }

    // MARK: Curl thread

    /// Stores a chunk; false when the reader is behind and the transfer must pause (the chunk is
    /// not stored: curl hands it over again on resume).
    func append(_ chunk: ArraySlice<UInt8>) -> Bool {
        state.withLock { state in
            if state.readerGone { return true }
            if state.buffered > 0, state.buffered + chunk.count > highWatermark {
                state.backpressured = true
                return false
            }
            state.chunks.append(chunk)
            state.buffered += chunk.count
            return true
        }
    }

    /// Ends the body (first call wins).
    func end(_ ending: Ending) {
        state.withLock { state in
            if state.ending == nil { state.ending = ending }
        }
    }

    /// True while the transfer is paused for this pipe.
    var isBackpressured: Bool { state.withLock { $0.backpressured } }

    /// Resumes a waiting reader when there is something for it. Called outside curl callbacks.
    func wakeReader() {
        let wake = state.withLock { state -> (CheckedContinuation<[ArraySlice<UInt8>], any Error>, Result<[ArraySlice<UInt8>], any Error>)? in
            guard let waiter = state.waiter else { return nil }
            if !state.chunks.isEmpty {
                state.waiter = nil
                return (waiter, .success(Self.takeAll(&state)))
            }
            switch state.ending {
            case .finished?: state.waiter = nil; return (waiter, .success([]))
            case .failed(let error)?: state.waiter = nil; return (waiter, .failure(error))
            case nil: return nil
            }
        }
        if let (waiter, result) = wake { waiter.resume(with: result) }
    }

    /// Every chunk stored so far, taken at once: for a response that ended before its head was
    /// handed over, so it can travel as one buffer.
    func drainAll() -> [ArraySlice<UInt8>] {
        state.withLock { Self.takeAll(&$0) }
    }

    // MARK: Reader

    /// The next batch of chunks; empty at the end. `relieved` runs when taking the bytes lifted
    /// backpressure, so the transfer can continue.
    func take(relieved: @Sendable () -> Void) async throws -> [ArraySlice<UInt8>] {
        enum Immediate { case chunks([ArraySlice<UInt8>]), failed(any Error) }
        let immediate = state.withLock { state -> Immediate? in
            if !state.chunks.isEmpty { return .chunks(Self.takeAll(&state)) }
            switch state.ending {
            case .finished?: return .chunks([])
            case .failed(let error)?: return .failed(error)
            case nil: return nil
            }
        }
        switch immediate {
        case .chunks(let chunks)?:
            relieveIfNeeded(relieved)
            return chunks
        case .failed(let error)?:
            throw error
        case nil:
            break
        }
        let chunks = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[ArraySlice<UInt8>], any Error>) in
                let ready = state.withLock { state -> Result<[ArraySlice<UInt8>], any Error>? in
                    if !state.chunks.isEmpty { return .success(Self.takeAll(&state)) }
                    switch state.ending {
                    case .finished?: return .success([])
                    case .failed(let error)?: return .failure(error)
                    case nil:
                        if Task.isCancelled { return .failure(CancellationError()) }
                        state.waiter = continuation
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<[ArraySlice<UInt8>], any Error>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(throwing: CancellationError())
        }
        relieveIfNeeded(relieved)
        return chunks
    }

    /// The reader dropped the body: keep nothing more.
    func readerLeft() -> Bool {
        state.withLock { state in
            state.readerGone = true
            state.chunks = []
            state.buffered = 0
            let wasPaused = state.backpressured
            state.backpressured = false
            return state.ending == nil || wasPaused
        }
    }

    private func relieveIfNeeded(_ relieved: @Sendable () -> Void) {
        let lift = state.withLock { state -> Bool in
            guard state.backpressured, state.buffered <= highWatermark / 2 else { return false }
            state.backpressured = false
            return true
        }
        if lift { relieved() }
    }

    private static func takeAll(_ state: inout State) -> [ArraySlice<UInt8>] {
        let chunks = state.chunks
        state.chunks = []
        state.buffered = 0
        return chunks
    }
}

/// The response body a `CurlTransport` hands out: single pass, read from the pipe. Dropping it
/// before the end cancels the transfer.
struct CurlResponseBody: AsyncSequence, Sendable {
    let reader: BodyReader

    func makeAsyncIterator() -> Iterator { Iterator(reader: reader) }

    struct Iterator: AsyncIteratorProtocol {
        let reader: BodyReader
        var batch: [ArraySlice<UInt8>] = []
        var index = 0

        mutating func next() async throws -> ArraySlice<UInt8>? {
            if index < batch.count {
                defer { index += 1 }
                return batch[index]
            }
            batch = try await reader.take()
            index = 0
            guard !batch.isEmpty else { return nil }
            index = 1
            return batch[0]
        }
    }
}

/// The reader's end of a transfer: cancels the transfer when it goes away unread.
final class BodyReader: Sendable {
    let transfer: CurlTransfer
    let pipe: ResponseBodyPipe

    init(transfer: CurlTransfer, pipe: ResponseBodyPipe) {
        self.transfer = transfer
        self.pipe = pipe
    }

    func take() async throws -> [ArraySlice<UInt8>] {
        let transfer = self.transfer
        do {
            return try await pipe.take { transfer.requestPauseUpdate() }
        } catch is CancellationError {
            transfer.cancel(with: CancellationError())
            throw CancellationError()
        }
    }

    deinit {
        if pipe.readerLeft() {
            transfer.cancel(with: CancellationError())
        }
    }
}
