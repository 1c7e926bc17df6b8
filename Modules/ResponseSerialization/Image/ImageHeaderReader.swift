import FoundationEssentials

/// Reads an image's format and size from its first bytes. Every read is bounds-checked: a short
/// or hostile header yields `nil`, never a trap.
struct ImageHeaderReader {
    /// The whole body, indexed from 0: a JPEG's frame header may follow megabytes of Exif, XMP
    /// or ICC segments, and a TIFF's directory often follows its pixels. The walk jumps from
    /// segment to segment (or straight to the directory), so it stays cheap.
    private let bytes: Data

    init(_ data: Data) {
        bytes = data.startIndex == 0 ? data : Data(data)
    }

    /// The format and size, or `nil` when the bytes are no image Courier knows.
    ///
    /// A header stating a side of 0 pixels, or more than ``largestSide``, describes no image its
    /// format allows: it is `nil` too, never an `ImageInfo` a caller would divide by.
    func read() -> (format: ImageInfo.Format, width: Int, height: Int)? {
        guard let image = recognized(), (1...Self.largestSide).contains(image.width),
              (1...Self.largestSide).contains(image.height) else { return nil }
        return image
    }

    /// 2³¹ − 1: PNG's specification stops there, BMP's sides are signed 32-bit fields, and a TIFF
    /// claiming more is corrupt.
    static let largestSide = Int(Int32.max)

    private func recognized() -> (format: ImageInfo.Format, width: Int, height: Int)? {
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png() }
        if starts([0xFF, 0xD8]) { return jpeg() }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return gif() }
        if starts(Array("BM".utf8)) { return bmp() }
        if starts([0x49, 0x49, 0x2A, 0x00]) { return tiff(littleEndian: true) }
        if starts([0x4D, 0x4D, 0x00, 0x2A]) { return tiff(littleEndian: false) }
        if starts([0x00, 0x00, 0x01, 0x00]) { return ico() }
        if starts(Array("RIFF".utf8)), match(Array("WEBP".utf8), at: 8) { return webp() }
        return nil
    }

    private func png() -> (ImageInfo.Format, Int, Int)? {
        guard match(Array("IHDR".utf8), at: 12), let width = u32(16, littleEndian: false), let height = u32(20, littleEndian: false) else { return nil }
        return (.png, Int(width), Int(height))
    }

    private func gif() -> (ImageInfo.Format, Int, Int)? {
        guard let width = u16(6, littleEndian: true), let height = u16(8, littleEndian: true) else { return nil }
        return (.gif, Int(width), Int(height))
    }

    private func bmp() -> (ImageInfo.Format, Int, Int)? {
        guard let headerSize = u32(14, littleEndian: true) else { return nil }
        if headerSize == 12 {
            guard let width = u16(18, littleEndian: true), let height = u16(20, littleEndian: true) else { return nil }
            return (.bmp, Int(width), Int(height))
        }
        guard let width = u32(18, littleEndian: true), let height = u32(22, littleEndian: true) else { return nil }
        // A negative height marks a top-down bitmap.
        return (.bmp, Int(Int32(bitPattern: width).magnitude), Int(Int32(bitPattern: height).magnitude))
    }

    private func jpeg() -> (ImageInfo.Format, Int, Int)? {
        var offset = 2
        // The width of a frame that states 0 lines: its height comes in a DNL segment after the
        // first scan (ITU-T T.81 B.2.5), so the walk goes on past the scan's entropy-coded data.
        var widthAwaitingLines: Int?
        while offset + 1 < bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            if marker == 0xFF { offset += 1; continue }                    // fill byte
            if marker == 0x01 || (0xD0...0xD9).contains(marker) { offset += 2; continue }   // no length
            guard let length = u16(offset + 2, littleEndian: false), length >= 2 else { return nil }
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isStartOfFrame, widthAwaitingLines == nil {
                guard let height = u16(offset + 5, littleEndian: false), let width = u16(offset + 7, littleEndian: false) else { return nil }
                guard height == 0 else { return (.jpeg, Int(width), Int(height)) }
                widthAwaitingLines = Int(width)
            } else if marker == 0xDC, let width = widthAwaitingLines {
                guard let lines = u16(offset + 4, littleEndian: false) else { return nil }
                return (.jpeg, width, Int(lines))
            } else if marker == 0xDA, widthAwaitingLines != nil {
                // Entropy-coded data: 0xFF is followed by 0x00 (stuffing) or a restart marker
                // inside it, by anything else at the next marker.
                offset += 2 + Int(length)
                while offset + 1 < bytes.count,
                      bytes[offset] != 0xFF || bytes[offset + 1] == 0x00 || (0xD0...0xD7).contains(bytes[offset + 1]) {
                    offset += 1
                }
                continue
            }
            offset += 2 + Int(length)
        }
        return nil
    }

    private func tiff(littleEndian: Bool) -> (ImageInfo.Format, Int, Int)? {
        guard let ifd = u32(4, littleEndian: littleEndian), let count = u16(Int(ifd), littleEndian: littleEndian) else { return nil }
        var width: Int?, height: Int?
        for entry in 0..<Int(count) {
            let at = Int(ifd) + 2 + entry * 12
            guard let tag = u16(at, littleEndian: littleEndian), let type = u16(at + 2, littleEndian: littleEndian) else { return nil }
            guard tag == 256 || tag == 257 else { continue }
            let value: Int?
            switch type {
            case 3: value = u16(at + 8, littleEndian: littleEndian).map(Int.init)
            case 4: value = u32(at + 8, littleEndian: littleEndian).map(Int.init)
            default: value = nil
            }
            if tag == 256 { width = value } else { height = value }
        }
        guard let width, let height else { return nil }
        return (.tiff, width, height)
    }

    private func ico() -> (ImageInfo.Format, Int, Int)? {
        guard let count = u16(4, littleEndian: true), count > 0 else { return nil }
        var best: (Int, Int)?
        for entry in 0..<Int(count) {
            let at = 6 + entry * 16
            guard at + 1 < bytes.count else { break }
            let width = bytes[at] == 0 ? 256 : Int(bytes[at])
            let height = bytes[at + 1] == 0 ? 256 : Int(bytes[at + 1])
            if best.map({ width * height > $0.0 * $0.1 }) ?? true { best = (width, height) }
        }
        guard let best else { return nil }
        return (.ico, best.0, best.1)
    }

    private func webp() -> (ImageInfo.Format, Int, Int)? {
        if match(Array("VP8 ".utf8), at: 12) {
            guard match([0x9D, 0x01, 0x2A], at: 23), let width = u16(26, littleEndian: true), let height = u16(28, littleEndian: true) else { return nil }
            return (.webp, Int(width & 0x3FFF), Int(height & 0x3FFF))
        }
        if match(Array("VP8L".utf8), at: 12) {
            guard bytes.count > 24, bytes[20] == 0x2F, let bits = u32(21, littleEndian: true) else { return nil }
            return (.webp, Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
        }
        if match(Array("VP8X".utf8), at: 12) {
            guard let width = u24(24), let height = u24(27) else { return nil }
            return (.webp, width + 1, height + 1)
        }
        return nil
    }

    // MARK: Bytes

    private func starts(_ prefix: [UInt8]) -> Bool { match(prefix, at: 0) }

    private func match(_ expected: [UInt8], at offset: Int) -> Bool {
        offset >= 0 && offset + expected.count <= bytes.count && bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    private func u16(_ offset: Int, littleEndian: Bool) -> UInt16? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    private func u24(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 3 <= bytes.count else { return nil }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16
    }

    private func u32(_ offset: Int, littleEndian: Bool) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        let b0 = UInt32(bytes[offset]), b1 = UInt32(bytes[offset + 1]), b2 = UInt32(bytes[offset + 2]), b3 = UInt32(bytes[offset + 3])
        return littleEndian ? b3 << 24 | b2 << 16 | b1 << 8 | b0 : b0 << 24 | b1 << 16 | b2 << 8 | b3
    }
}
