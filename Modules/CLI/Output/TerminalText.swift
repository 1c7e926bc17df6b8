import CourierCore

/// Server-controlled text made safe to show on a terminal: a header value, a reason phrase, a
/// URL from `Location`, a file name from `Content-Disposition` could otherwise hold escape
/// sequences that retitle the window, write the clipboard (OSC 52), fake hyperlinks (OSC 8) or
/// hide text, or bidi overrides that make a name read differently from what it is.
///
/// Control characters (C0 but tab, DEL, C1) and bytes that are not UTF-8 are shown as `\x1b`;
/// bidi overrides, isolates and marks as `\u{202E}`. Everything else, multibyte text included,
/// is kept. A backslash is not escaped: the aim is a harmless screen, not a reversible encoding.
///
/// ```swift
/// TerminalText.escaped("x\u{1B}]0;pwned\u{07}")    // x\x1b]0;pwned\x07
/// TerminalText.escaped(bytes: [0x61, 0xFF, 0x09])  // a\xff<tab>
/// TerminalText.escaped("invoice\u{202E}fdp.exe")   // invoice\u{202E}fdp.exe
/// ```
/// Only output that goes to a terminal is escaped; redirected output stays byte-exact
/// (``ConsoleText``). Bodies are judged as a whole instead (`TerminalText+Body.swift`).
enum TerminalText {
    /// `text` with every character a terminal should not see raw escaped.
    static func escaped(_ text: String) -> String {
        // Most heads are printable ASCII: no copy for them.
        if text.utf8.allSatisfy(isPlainASCII) { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars { append(scalar, to: &output) }
        return output
    }

    /// `bytes` decoded as UTF-8 with every character a terminal should not see raw escaped, and
    /// every byte that is not part of well-formed UTF-8 shown as `\xNN`.
    static func escaped(bytes: some Collection<UInt8>) -> String {
        let escaped: String? = bytes.withContiguousStorageIfAvailable(escaped(buffer:))
        return escaped ?? Array(bytes).withUnsafeBufferPointer(escaped(buffer:))
    }

    /// True for a character shown escaped: a control character but tab, or a bidi control.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.isControlCharacter && scalar != "\t") || scalar.isBidiControl
    }

    private static func isPlainASCII(_ byte: UInt8) -> Bool {
        (0x20..<0x7F).contains(byte) || byte == 0x09
    }

    private static func escaped(buffer: UnsafeBufferPointer<UInt8>) -> String {
        if buffer.allSatisfy(isPlainASCII) { return String(decoding: buffer, as: UTF8.self) }
        var output = ""
        output.reserveCapacity(buffer.count + 8)
        var index = 0
        while index < buffer.count {
            switch StrictUTF8.decode(buffer, at: index) {
            case .scalar(let scalar, let length):
                append(scalar, to: &output)
                index += length
            case .invalid, .truncated:
                output += hex(buffer[index])
                index += 1
            }
        }
        return output
    }

    private static func append(_ scalar: Unicode.Scalar, to output: inout String) {
        if scalar.isBidiControl {
            output += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        } else if needsEscape(scalar) {
            output += hex(UInt8(scalar.value))
        } else {
            output.unicodeScalars.append(scalar)
        }
    }

    /// `\x1b`: two lower-case digits, as Python and bash show bytes.
    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16)
        return "\\x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
