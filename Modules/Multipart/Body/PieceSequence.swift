import CourierCore
import FoundationEssentials

/// Reads a laid-out form piece after piece, checking that every stream part delivers the length
/// it announced (the `Content-Length` depends on it), and throttling when asked.
struct PieceSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>

    let pieces: [MultipartFormData.Piece]
    let throttle: Throttle?

    func makeAsyncIterator() -> Iterator {
        Iterator(pieces: pieces, throttle: throttle)
    }

    struct Iterator: AsyncIteratorProtocol {
        private let pieces: [MultipartFormData.Piece]
        private let throttle: Throttle?
        private var index = 0
        private var current: Body.Iterator?
        private var delivered: Int64 = 0
        /// What is left of a chunk larger than the throttle's packet size.
        private var leftover: ArraySlice<UInt8> = []
        private var sentPacket = false

        init(pieces: [MultipartFormData.Piece], throttle: Throttle?) {
            self.pieces = pieces
            self.throttle = throttle
        }

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let throttle else { return try await nextChunk() }
            if leftover.isEmpty {
                guard let chunk = try await nextChunk() else { return nil }
                leftover = chunk
            }
            if sentPacket {
                // A zero delay only caps the packet size: no trip through the timer per packet.
                if throttle.delay > .zero { try await Task.sleep(for: throttle.delay) } else { try Task.checkCancellation() }
            }
            sentPacket = true
            let packet = leftover.prefix(throttle.packetSize)
            leftover = leftover.dropFirst(packet.count)
            return packet
        }

        /// The next chunk of the form, whatever its size.
        private mutating func nextChunk() async throws -> ArraySlice<UInt8>? {
            while index < pieces.count {
                if current == nil {
                    switch pieces[index] {
                    case .segment(let segment):
                        current = Body(segments: [segment]).makeAsyncIterator()
                    case .stream(let body, _, _):
                        current = body.makeAsyncIterator()
                    }
                    delivered = 0
                }
                if let chunk = try await current?.next() {
                    delivered += Int64(chunk.count)
                    try checkNotLonger()
                    if chunk.isEmpty { continue }
                    return chunk
                }
                try checkComplete()
                current = nil
                index += 1
            }
            return nil
        }

        private func checkNotLonger() throws(MultipartError) {
            guard case .stream(_, let length, let name) = pieces[index], delivered > length else { return }
            throw MultipartError(.lengthMismatch, partName: name, detail: "the stream delivered more than the \(length) bytes it announced")
        }

        private func checkComplete() throws(MultipartError) {
            guard case .stream(_, let length, let name) = pieces[index], delivered != length else { return }
            throw MultipartError(.lengthMismatch, partName: name, detail: "the stream ended after \(delivered) of the \(length) bytes it announced")
        }
    }
}
