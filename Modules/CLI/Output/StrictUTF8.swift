/// One step of strict UTF-8 decoding (Unicode's table 3-7: no overlong forms, no surrogates,
/// nothing above U+10FFFF), that says which bytes are wrong instead of replacing them, so
/// ``TerminalText`` can show them as `\xNN` and a body check can tell a character cut at the end
/// of a chunk from a bad byte.
///
/// ```swift
/// Array("é!".utf8).withUnsafeBufferPointer { StrictUTF8.decode($0, at: 0) }  // .scalar("é", length: 2)
/// [0xFF, 0x41].withUnsafeBufferPointer { StrictUTF8.decode($0, at: 0) }      // .invalid
/// [0xE2, 0x80].withUnsafeBufferPointer { StrictUTF8.decode($0, at: 0) }      // .truncated
/// ```
enum StrictUTF8 {
    /// What the bytes at an index hold.
    enum Step: Equatable {
        /// A well-formed character of `length` bytes.
        case scalar(Unicode.Scalar, length: Int)
        /// The byte at the index starts no well-formed character: skip that one byte.
        case invalid
        /// The bytes from the index to the end are a well-formed beginning cut short.
        case truncated
    }

    /// Decodes the character starting at `index` (which must be in `bytes`).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Step {
        let lead = bytes[index]
        if lead < 0x80 { return .scalar(Unicode.Scalar(lead), length: 1) }
        // The allowed range of the second byte depends on the lead (table 3-7); later bytes
        // are always 80…BF.
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; second = 0x80...0x8F
        default: return .invalid
        }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            guard index + offset < bytes.count else { return .truncated }
            let byte = bytes[index + offset]
            guard (offset == 1 ? second : 0x80...0xBF).contains(byte) else { return .invalid }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        // The ranges above exclude surrogates and values past U+10FFFF, so this cannot fail.
        guard let scalar = Unicode.Scalar(value) else { return .invalid }
        return .scalar(scalar, length: length)
    }
}
