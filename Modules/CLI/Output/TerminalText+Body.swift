import CourierCore

extension TerminalText {
    /// Whether a body may be written to a terminal as it is.
    enum BodyVerdict: Equatable, Sendable {
        /// Text a terminal shows as text.
        case text
        /// Binary data: a NUL anywhere, or a first kilobyte that is not UTF-8 (``BinaryDetection``).
        case binary
        /// Text holding something a terminal acts on instead of showing: ESC (which starts
        /// CSI and OSC sequences: colours, titles, OSC 8 links, OSC 52 clipboard writes), a C1
        /// control (U+0080–U+009F, CSI U+009B among them) encoded as UTF-8 or as a raw byte, or
        /// a C0 control but tab, newline, carriage return and form feed (BEL, backspace,
        /// shift-out…), or DEL.
        case controlCharacters
    }

    /// The verdict for a whole body held in memory.
    ///
    /// ```swift
    /// TerminalText.verdict(forBody: Array("plain\n".utf8))           // .text
    /// TerminalText.verdict(forBody: Array("\u{1B}[31mred\n".utf8))    // .controlCharacters
    /// ```
    static func verdict(forBody bytes: some Collection<UInt8>) -> BodyVerdict {
        var check = BodyCheck()
        return check.next(ArraySlice(bytes))
    }

    /// True when `bytes` must not be written raw to a terminal.
    static func isUnsafeForTerminal(body bytes: some Collection<UInt8>) -> Bool {
        verdict(forBody: bytes) != .text
    }

    /// Judges a body chunk by chunk as it streams, so a terminal sees none of an unsafe chunk.
    /// A character cut by a chunk boundary is judged whole with the next chunk: the second half
    /// of `é` (C3 A9) or of U+009B (C2 9B) alone would look like a raw byte.
    struct BodyCheck {
        /// The unfinished character at the end of the last chunk.
        private var pending: [UInt8] = []
        private var first = true

        /// The verdict for `chunk`, given the chunks before it.
        mutating func next(_ chunk: ArraySlice<UInt8>) -> BodyVerdict {
            if first {
                first = false
                if BinaryDetection.looksBinary(chunk) { return .binary }
            }
            // Copying happens only when a boundary cut a character: rare, and at most one chunk.
            let bytes = pending.isEmpty ? chunk : ArraySlice(pending + chunk)
            pending = []
            return bytes.withUnsafeBufferPointer { scan($0) }
        }

        private mutating func scan(_ buffer: UnsafeBufferPointer<UInt8>) -> BodyVerdict {
            var index = 0
            while index < buffer.count {
                let byte = buffer[index]
                if byte < 0x80 {
                    switch byte {
                    case 0x00: return .binary
                    // Tab, newline, form feed, carriage return: plain text layout.
                    case 0x09, 0x0A, 0x0C, 0x0D: break
                    // ESC among them.
                    case 0x01...0x1F, 0x7F: return .controlCharacters
                    default: break
                    }
                    index += 1
                    continue
                }
                switch StrictUTF8.decode(buffer, at: index) {
                case .scalar(let scalar, let length):
                    if scalar.isControlCharacter { return .controlCharacters }
                    index += length
                case .invalid:
                    // A raw C1 byte: an 8-bit terminal takes 0x9B as CSI. Other bad bytes past
                    // the first kilobyte are shown, as before (a mostly-UTF-8 text).
                    if (0x80...0x9F).contains(byte) { return .controlCharacters }
                    index += 1
                case .truncated:
                    pending = Array(buffer[index...])
                    return .text
                }
            }
            return .text
        }
    }
}
