@testable import CourierResponseSerialization
import FoundationEssentials

/// The image header reader (`ImageHeaderReader`, what ``ImageResponseSerializer`` reports as an image's
/// format and size): any bytes give `nil` or a format with a width and a height that a real file of that
/// format can have — at least 1 pixel each way (a zero side is no image, and a caller dividing by it for an
/// aspect ratio would trap) and at most what the format's fields can say (2³¹ − 1 for PNG, TIFF and BMP, whose
/// specifications or signed fields stop there; 65,535 for JPEG and GIF; 256 for ICO; 16,384 for lossy and
/// lossless WebP, 2²⁴ for extended WebP), never a trap. The format named is the one whose signature starts the
/// bytes, and the answer does not depend on where the bytes sit in a `Data` (a slice is indexed from its
/// start index, not 0).
enum ImageHeaderFuzz: FuzzTarget {
    static let name = "image-header"

    static func run(_ input: FuzzInput) {
        let bytes = input.rest()
        let data = Data(bytes)
        let answer = ImageHeaderReader(data).read()

        // The same bytes at the end of a larger buffer: a slice whose indices do not start at 0.
        let padded = Data([0x89, 0xFF, 0xD8, 0x42]) + data
        let slice = padded[padded.index(padded.startIndex, offsetBy: 4)...]
        let sliced = ImageHeaderReader(slice).read()
        precondition(answer.map(Triple.init) == sliced.map(Triple.init),
                     "a slice reads \(String(describing: sliced)), the same bytes from 0 read \(String(describing: answer))")

        guard let (format, width, height) = answer else { return }
        precondition(width >= 1 && height >= 1, "\(format) of \(width)×\(height): a side of no pixel")
        let limit = maximumSide(format, bytes)
        precondition(width <= limit && height <= limit, "\(format) of \(width)×\(height): above the format's \(limit)")
        precondition(signature(of: bytes) == format, "\(format) read from bytes whose signature says \(String(describing: signature(of: bytes)))")
    }

    /// The answer as a comparable value.
    struct Triple: Equatable {
        let format: ImageInfo.Format, width: Int, height: Int
        init(_ answer: (format: ImageInfo.Format, width: Int, height: Int)) {
            (format, width, height) = answer
        }
    }

    /// The largest side a file of `format` can state.
    static func maximumSide(_ format: ImageInfo.Format, _ bytes: [UInt8]) -> Int {
        switch format {
        case .png, .tiff, .bmp: return Int(Int32.max)
        case .jpeg, .gif: return Int(UInt16.max)
        case .ico: return 256
        case .webp:
            // VP8X stores 24-bit sides minus one; VP8 and VP8L 14-bit ones.
            let extended = bytes.count >= 16 && bytes[12..<16].elementsEqual("VP8X".utf8)
            return extended ? 1 << 24 : 1 << 14
        }
    }

    /// The format whose magic number starts `bytes` (an independent reading of the signatures).
    static func signature(of bytes: [UInt8]) -> ImageInfo.Format? {
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("BM".utf8)) { return .bmp }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts([0x00, 0x00, 0x01, 0x00]) { return .ico }
        if starts(Array("RIFF".utf8)), bytes.count >= 12, bytes[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        return nil
    }
}
