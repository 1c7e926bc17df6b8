import CourierRequestSerialization
import Testing

@Suite("Percent escaping")
struct PercentEscapingTests {
    @Test func reservedCharactersAreEscapedButSlashAndQuestionMarkStay() {
        // Checklist 11.
        #expect(PercentEscaping.escape(":#[]@!$&'()*+,;=?/") == "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D?/")
    }

    @Test func everyPrintableASCIICharacterIsEscapedUnlessUnreserved() {
        // Checklist 13: unescaped iff in [A-Za-z0-9-._~/?], otherwise %XX in uppercase.
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?".utf8)
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let character = String(decoding: [byte], as: UTF8.self)
            let hex = String(byte, radix: 16, uppercase: true)
            let expected = unreserved.contains(byte) ? character : "%" + (hex.count == 1 ? "0" + hex : hex)
            #expect(PercentEscaping.escape(character) == expected, "byte \(byte)")
            #expect(PercentEscaping.leavesUnescaped(byte) == unreserved.contains(byte))
        }
        #expect(PercentEscaping.escape(" ") == "%20")
        #expect(PercentEscaping.escape("%") == "%25")
    }

    @Test func controlCharactersAndDeleteAreEscaped() {
        #expect(PercentEscaping.escape("\u{0}\t\n\r\u{7F}") == "%00%09%0A%0D%7F")
    }

    @Test func nonASCIIIsEscapedAsUTF8WithUppercaseHex() {
        // Checklist 14.
        #expect(PercentEscaping.escape("é ü+") == "%C3%A9%20%C3%BC%2B")
        #expect(PercentEscaping.escape("日本") == "%E6%97%A5%E6%9C%AC")
    }

    @Test func emojiWithModifiersAreEncodedWhole() {
        #expect(PercentEscaping.escape("👴🏿") == "%F0%9F%91%B4%F0%9F%8F%BF")
        // A family emoji joined by ZWJ (U+200D) keeps every scalar.
        #expect(PercentEscaping.escape("👩‍👧") == "%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7")
    }

    @Test func longStringsEncodeTheSameAsTheirParts() {
        // AFNetworking batched 50 UTF-16 units at a time; the output must not depend on length.
        let piece = "a b👮🏽é/?"
        let long = String(repeating: piece, count: 200)
        #expect(PercentEscaping.escape(long) == String(repeating: PercentEscaping.escape(piece), count: 200))
    }

    @Test func unreservedTextAndEmptyStringComeBackUnchanged() {
        #expect(PercentEscaping.escape("") == "")
        #expect(PercentEscaping.escape("Az09-._~/?") == "Az09-._~/?")
    }
}
