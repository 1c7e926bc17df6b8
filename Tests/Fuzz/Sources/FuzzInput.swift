/// The fuzzer's bytes, with helpers that turn them into structured choices (in the spirit of LLVM's
/// FuzzedDataProvider): small choices are taken from the front, so the rest stays a meaningful payload.
///
/// A class so that helpers can consume from it; it lives for one call of a target.
final class FuzzInput {
    /// Every byte of the input.
    let bytes: [UInt8]
    private var front = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        bytes = Array(buffer)
    }

    /// True when every byte has been taken.
    var isEmpty: Bool { front >= bytes.count }

    /// The bytes not taken yet.
    var remaining: ArraySlice<UInt8> { bytes[min(front, bytes.count)...] }

    /// One byte from the front (0 when none is left).
    func byte() -> UInt8 {
        guard front < bytes.count else { return 0 }
        defer { front += 1 }
        return bytes[front]
    }

    /// A boolean from the front.
    func bool() -> Bool { byte() & 1 == 1 }

    /// An integer in `range`, from up to two bytes of the front.
    func int(in range: ClosedRange<Int>) -> Int {
        let span = range.upperBound - range.lowerBound
        guard span > 0 else { return range.lowerBound }
        let raw = span < 256 ? Int(byte()) : Int(byte()) << 8 | Int(byte())
        return range.lowerBound + raw % (span + 1)
    }

    /// Up to `maximum` bytes from the front; the length comes from the input too.
    func bytes(upTo maximum: Int) -> [UInt8] {
        let count = int(in: 0...maximum)
        let end = min(front + count, bytes.count)
        defer { front = end }
        return front < end ? Array(bytes[front..<end]) : []
    }

    /// A string of up to `maximum` bytes, decoded as UTF-8 (invalid sequences become U+FFFD).
    func string(upTo maximum: Int) -> String {
        String(decoding: bytes(upTo: maximum), as: UTF8.self)
    }

    /// Every byte not taken yet.
    func rest() -> [UInt8] {
        defer { front = bytes.count }
        return Array(remaining)
    }

    /// The bytes not taken yet, split at every byte equal to `separator` (empty pieces kept).
    func restSplit(at separator: UInt8) -> [ArraySlice<UInt8>] {
        rest().split(separator: separator, omittingEmptySubsequences: false)
    }
}
