internal import CLibXML2

/// Decodes a document in an encoding only ICU knows (see `cxml_icu_decodes`) into UTF-8 for libxml2,
/// piece by piece, keeping a character cut by a piece's end for the next piece. libxml2 2.9's own use
/// of ICU ends the conversion at the end of every chunk it is pushed: it failed valid documents and
/// dropped bytes that are not in the encoding when the body was cut inside a character (found by the
/// `xml` fuzz target, docs/reliability.md).
///
/// Not thread-safe: owned by one ``PushParser``.
final class ICUDecoder {
    /// The encoding's name as the document or the charset gave it.
    let name: String
    private let decoder: UnsafeMutableRawPointer
    /// Where each call's UTF-8 is made, reused.
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ICUDecoder.outputSize, alignment: 1)

    /// Output is made in pieces of at most this many bytes.
    static let outputSize = 64 * 1024

    /// Whether libxml2 would decode `name` with ICU (so Courier should, with this type).
    static func isNeeded(for name: String) -> Bool {
        cxml_icu_decodes(name) != 0
    }

    init(name: String) throws(XMLError) {
        guard let decoder = cxml_decoder_open(name) else {
            throw XMLError(reason: .encoding, message: "ICU cannot decode \(name)")
        }
        self.name = name
        self.decoder = decoder
    }

    deinit {
        cxml_decoder_close(decoder)
        output.deallocate()
    }

    /// Decodes `input`, handing the UTF-8 out in pieces of at most ``outputSize`` bytes; `flush`
    /// says the document ends with `input` (a character it cuts is then an error).
    func decode(_ input: UnsafeRawBufferPointer, flush: Bool, into deliver: (UnsafeRawBufferPointer) throws(XMLError) -> Void) throws(XMLError) {
        var offset = 0
        while true {
            var consumed = 0
            var produced = 0
            var invalid = [CChar](repeating: 0, count: 8)
            var invalidCount: Int32 = 0
            let rest = UnsafeRawBufferPointer(rebasing: input[offset...])
            let status = cxml_decoder_convert(
                decoder, rest.baseAddress?.assumingMemoryBound(to: CChar.self), rest.count, &consumed,
                output.baseAddress!.assumingMemoryBound(to: CChar.self), output.count, &produced, flush ? 1 : 0,
                &invalid, &invalidCount
            )
            offset += consumed
            if produced > 0 { try deliver(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
            switch status {
            case 1: continue
            case 0: return
            default:
                let hex = invalid.prefix(Int(invalidCount)).map { Self.hex(UInt8(bitPattern: $0)) }
                let detail = hex.isEmpty ? "" : ", bytes " + hex.joined(separator: " ")
                let what = status == -2 ? "the document ends inside a character of" : "bytes that are not valid"
                throw XMLError(reason: .encoding, message: "\(what) \(name)\(detail)")
            }
        }
    }
}

extension ICUDecoder {
    /// `0xE8`.
    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "0x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
