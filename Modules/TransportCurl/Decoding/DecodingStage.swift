import CourierCore

/// One coding of a body's decoding: buffers the input it has not used yet and hands out decoded
/// output one buffer at a time, never more. Knows the end-of-body rules: bytes after the end of
/// the compressed stream are ignored (or start a next gzip member or zstd frame), and a body that
/// ends inside a stream is truncated.
///
/// Used by one reader at a time (a body's iterator), so it needs no lock.
final class DecodingStage {
    /// The output buffer's size: the most one step hands out.
    static let outputSize = 64 * 1024

    let coding: ContentCoding
    private let decoder: any ContentDecoder
    private let output: UnsafeMutableRawBufferPointer
    private var pending: ArraySlice<UInt8> = []
    private var inputEnded = false
    /// The last step filled the output: the decoder may hold more without new input.
    private var outputMayBeHeld = false
    /// Between streams: before the first byte, or after a stream's end.
    private var betweenStreams = true
    private var sawInput = false
    /// Bytes after a stream's end did not start another one: they and every byte after them are a
    /// trailer. Decided once, so a later chunk that happens to begin with a gzip magic number is not
    /// taken for a member (which would make the result depend on how the body was cut).
    private var inTrailer = false
    /// No more output will come.
    private(set) var isDone = false

    init(coding: ContentCoding) throws {
        self.coding = coding
        self.decoder = try makeContentDecoder(for: coding)
        self.output = .allocate(byteCount: Self.outputSize, alignment: 16)
    }

    deinit { output.deallocate() }

    /// More input, from the wire or the stage before.
    func feed(_ chunk: ArraySlice<UInt8>) {
        guard !chunk.isEmpty, !inTrailer else { return }
        if pending.isEmpty { pending = chunk } else { pending.append(contentsOf: chunk) }
    }

    /// The input ended.
    func endInput() { inputEnded = true }

    /// The next decoded bytes: a non-empty buffer, or `nil` when the stage is done (``isDone``) or
    /// needs ``feed(_:)`` or ``endInput()`` before it can go on.
    func step() throws -> ArraySlice<UInt8>? {
        while !isDone {
            if betweenStreams, sawInput, !pending.isEmpty {
                // Two bytes tell whether another stream follows (a gzip member's magic number).
                if pending.count < 2, !inputEnded {
                    return nil
                }
                if !decoder.startsAnotherStream(pending) {   // trailing bytes: ignored, to the end
                    pending = []
                    inTrailer = true
                }
            }
            if pending.isEmpty, !outputMayBeHeld {
                if inputEnded {
                    guard betweenStreams else {
                        throw TransportError(.truncatedBody, message: "the \(coding.name) response body ended before its compressed stream did")
                    }
                    isDone = true
                    return nil
                }
                return nil
            }
            let before = pending.count
            let step = try pending.withUnsafeBytes { input in
                try decoder.decode(input, into: output)
            }
            if step.consumed > 0 || step.produced > 0 { sawInput = true; betweenStreams = false }
            pending = pending.dropFirst(step.consumed)
            if step.streamEnded { betweenStreams = true }
            outputMayBeHeld = step.produced == output.count
            if step.produced > 0 {
                return ArraySlice(UnsafeRawBufferPointer(rebasing: output[0..<step.produced]))
            }
            if step.consumed == 0, !step.streamEnded, before > 0 {
                // The decoder needs more bytes than it has (a header split across reads).
                if inputEnded {
                    throw TransportError(.truncatedBody, message: "the \(coding.name) response body ended before its compressed stream did")
                }
                return nil
            }
        }
        return nil
    }
}
