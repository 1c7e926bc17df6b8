@testable import CourierXML
import FoundationEssentials
import Testing

/// ``PrologScanner`` alone: where a prolog ends, whatever the pieces it arrives in.
@Suite struct PrologScannerTests {
    /// The offset after the prolog's last byte when fed `bytes` in pieces of `size` (`nil`: not ended).
    private func end(of bytes: [UInt8], _ encoding: PrologScanner.Encoding, pieces size: Int) -> Int? {
        var scanner = PrologScanner(encoding: encoding)
        var offset = 0
        while offset < bytes.count {
            let piece = Array(bytes[offset..<min(bytes.count, offset + size)])
            if let end = piece.withUnsafeBytes({ scanner.scan($0) }) {
                #expect(scanner.hasEnded)
                return offset + end
            }
            offset += piece.count
        }
        #expect(!scanner.hasEnded)
        return nil
    }

    private func expectEnd(_ text: String, at marker: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        let bytes = Array(text.utf8)
        let expected = marker.map { text.utf8.count - (text.components(separatedBy: $0).last?.utf8.count ?? 0) }
        for size in [1, 2, 3, 5, bytes.count] {
            #expect(end(of: bytes, .asciiCompatible, pieces: size) == expected, "pieces of \(size)", sourceLocation: sourceLocation)
        }
    }

    @Test func endsAfterTheDocumentTypeDeclaration() {
        expectEnd(#"<?xml version="1.0"?><!DOCTYPE a SYSTEM "x>y.dtd">"#, at: #"y.dtd">"#)
        expectEnd(#"<!DOCTYPE a PUBLIC '-//A//B' "u>'>">"#, at: #""u>'>">"#)
        expectEnd("\u{FEFF} \n<!-- '>\" --><?pi a > b?><!DOCTYPE a><a/>", at: "<!DOCTYPE a>")
    }

    @Test func followsTheInternalSubset() {
        let subset = #"<!DOCTYPE a [ <!-- it's ]> --> <!ELEMENT a ANY> <!ATTLIST a b CDATA "]>'"> <?p ]> ?> %pe; ] >"#
        expectEnd(subset + "<a/>", at: "%pe; ] >")
        expectEnd(#"<!DOCTYPE a ["#, at: nil)
        expectEnd(#"<!DOCTYPE a [<!ATTLIST a b CDATA "]>"#, at: nil)
    }

    @Test func endsAtTheFirstElementOrAnythingUnexpected() {
        expectEnd("<?xml version='1.0'?>\n<root>", at: "<r")
        expectEnd("  text", at: "  t")
        expectEnd("<![CDATA[x]]>", at: "<![")
        expectEnd("<!-- unfinished", at: nil)
        expectEnd("<?pi unfinished ?", at: nil)
    }

    @Test func readsWideUnits() {
        let text = #"<!DOCTYPE a SYSTEM "é>"><a/>"#
        let units = Array(text.utf16)
        let littleEndian = units.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian = units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let ucs4 = text.unicodeScalars.flatMap { scalar in (0..<4).reversed().map { UInt8(truncatingIfNeeded: scalar.value >> ($0 * 8)) } }
        let prolog = #"<!DOCTYPE a SYSTEM "é>">"#.count
        for size in [1, 3, 7] {
            #expect(end(of: littleEndian, .utf16(bigEndian: false), pieces: size) == prolog * 2)
            #expect(end(of: bigEndian, .utf16(bigEndian: true), pieces: size) == prolog * 2)
            #expect(end(of: ucs4, .ucs4(bigEndian: true), pieces: size) == prolog * 4)
        }
    }

    @Test func detectsTheEncodingAsLibxml2Does() {
        typealias Encoding = PrologScanner.Encoding
        #expect(Encoding.detect(head: [0xEF, 0xBB, 0xBF, 0x3C], charset: "utf-16") == .asciiCompatible)
        #expect(Encoding.detect(head: [0xFF, 0xFE, 0x3C, 0x00], charset: nil) == .utf16(bigEndian: false))
        #expect(Encoding.detect(head: [0xFE, 0xFF, 0x00, 0x3C], charset: "utf-8") == .utf16(bigEndian: true))
        #expect(Encoding.detect(head: [0x00, 0x3C, 0x00, 0x61], charset: nil) == .utf16(bigEndian: true))
        #expect(Encoding.detect(head: [0x3C, 0x00, 0x61, 0x00], charset: "UTF-16LE") == .utf16(bigEndian: false))
        #expect(Encoding.detect(head: [0x00, 0x00, 0x00, 0x3C], charset: nil) == .ucs4(bigEndian: true))
        #expect(Encoding.detect(head: [0xFF, 0xFE, 0x00, 0x00], charset: nil) == .ucs4(bigEndian: false))
        #expect(Encoding.detect(head: Array("<a/>".utf8), charset: "ISO-8859-1") == .asciiCompatible)
        #expect(Encoding.detect(head: Array("<a/>".utf8), charset: nil) == .asciiCompatible)
        #expect(Encoding.detect(head: [0x4C, 0x6F, 0xA7, 0x94], charset: nil) == nil)
        #expect(Encoding.detect(head: Array("<a/>".utf8), charset: "utf-16") == nil)
        #expect(Encoding.detect(head: [0x3C], charset: nil) == .asciiCompatible)
    }
}
