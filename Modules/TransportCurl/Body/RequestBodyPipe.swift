import CourierCore
import FoundationEssentials

/// Carries request bytes from a pump task reading the `Body` to curl's read callback, holding
/// at most `limit` bytes: the pump waits while curl is behind, curl pauses while the pump is.
final class RequestBodyPipe: Sendable {
    enum Read {
        case bytes(Int)
        case pause
        case end
        case failed(any Error)
    }

    private struct State: Sendable {
        var chunks: [ArraySlice<UInt8>] = []
        var buffered = 0
        var finished = false
        var failure: (any Error)?
        var starved = false
        var consumedAny = false
        var producerWaiter: CheckedContinuation<Void, any Error>?
        var cancelled = false
    }

    private let state = Locked(State())
    let limit: Int

    /// The most bytes one read hands curl (a throttled body's packet size); `Int.max` for no limit.
    private let maximumRead: Int

    /// A pipe that holds up to `limit` bytes, at least 1. With a limit of 0 or below, the pump waited even when curl
    /// had taken every byte, and a wake-up that came before it waited was lost: a streamed upload stalled for good.
    init(limit: Int, maximumRead: Int? = nil) {
        self.limit = max(1, limit)
        self.maximumRead = maximumRead ?? .max
    }

    // MARK: Pump

    /// Adds a chunk, calls `relieveStarvation` when curl was waiting for bytes (so the upload is
    /// unpaused before anything waits), then waits while the pipe is full.
    func push(_ chunk: ArraySlice<UInt8>, relieveStarvation: () -> Void) async throws {
        guard !chunk.isEmpty else { return }
        let wasStarved = state.withLock { state -> Bool in
            state.chunks.append(chunk)
            state.buffered += chunk.count
            defer { state.starved = false }
            return state.starved
        }
        if wasStarved { relieveStarvation() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let proceed = state.withLock { state -> Result<Void, any Error>? in
                if state.cancelled { return .failure(CancellationError()) }
                guard state.buffered >= limit else { return .success(()) }
                state.producerWaiter = continuation
                return nil
            }
            if let proceed { continuation.resume(with: proceed) }
        }
    }

    /// Ends the body, or fails it. Returns whether curl was starved.
    func finish(throwing error: (any Error)? = nil) -> Bool {
        state.withLock { state in
            state.finished = true
            state.failure = error
            defer { state.starved = false }
            return state.starved
        }
    }

    /// Stops the pump (the transfer ended).
    func cancel() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            state.cancelled = true
            defer { state.producerWaiter = nil }
            return state.producerWaiter
        }
        waiter?.resume(throwing: CancellationError())
    }

    // MARK: Curl thread

    /// Copies up to `capacity` bytes into `destination`.
    func read(into destination: UnsafeMutableRawBufferPointer) -> Read {
        state.withLock { state in
            if let failure = state.failure { return .failed(failure) }
            guard !state.chunks.isEmpty else {
                if state.finished { return .end }
                state.starved = true
                return .pause
            }
            guard let base = destination.baseAddress else { return .bytes(0) }
            var written = 0
            let capacity = min(destination.count, maximumRead)
            while written < capacity, !state.chunks.isEmpty {
                let chunk = state.chunks[0]
                let count = min(chunk.count, capacity - written)
                chunk.withUnsafeBytes { source in
                    if let from = source.baseAddress {
                        base.advanced(by: written).copyMemory(from: from, byteCount: count)
                    }
                }
                written += count
                if count == chunk.count {
                    state.chunks.removeFirst()
                } else {
                    state.chunks[0] = chunk.dropFirst(count)
                }
            }
            state.buffered -= written
            state.consumedAny = true
            return .bytes(written)
        }
    }

    /// Whether curl may rewind to the start: only before the first byte was taken.
    var canRewind: Bool { state.withLock { !$0.consumedAny } }

    var isStarved: Bool { state.withLock { $0.starved } }

    /// Wakes the pump when there is room again. Called outside curl callbacks.
    func wakeProducer() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.buffered < limit / 2 || state.buffered == 0, let waiter = state.producerWaiter else { return nil }
            state.producerWaiter = nil
            return waiter
        }
        waiter?.resume()
    }
}
