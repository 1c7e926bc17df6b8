/// Reads the encoding an XML declaration (`<?xml version="1.0" encoding="x-sjis"?>`) names, from the
/// raw bytes at the start of a document, before libxml2 sees them. Pure: no libxml2.
///
/// Only a declaration written in ASCII bytes at the very start is read (what libxml2 reads without a
/// byte-order mark or a UTF-16 or UCS-4 layout); anything else names no encoding here, and libxml2
/// judges the declaration itself.
enum XMLDeclaration {
    /// The `EncName` of the declaration at the start of `bytes` (XML 1.0 §4.3.3), or `nil` when
    /// `bytes` do not start with a complete declaration naming one.
    static func encoding(in bytes: [UInt8]) -> String? {
        let opening = Array("<?xml".utf8)
        guard bytes.count > opening.count, bytes.starts(with: opening), isSpace(bytes[opening.count]) else { return nil }
        guard let end = (opening.count..<(bytes.count - 1)).first(where: { bytes[$0] == 0x3F && bytes[$0 + 1] == 0x3E }) else {
            return nil
        }
        let declaration = bytes[opening.count..<end]
        let keyword = Array("encoding".utf8)
        // The byte before `encoding` must be white space, and the first byte is (checked above).
        var index = declaration.startIndex + 1
        while index + keyword.count <= declaration.endIndex {
            defer { index += 1 }
            guard isSpace(declaration[index - 1]), declaration[index...].starts(with: keyword) else { continue }
            var cursor = index + keyword.count
            while cursor < declaration.endIndex, isSpace(declaration[cursor]) { cursor += 1 }
            guard cursor < declaration.endIndex, declaration[cursor] == 0x3D else { continue }
            cursor += 1
            while cursor < declaration.endIndex, isSpace(declaration[cursor]) { cursor += 1 }
            guard cursor < declaration.endIndex, declaration[cursor] == 0x22 || declaration[cursor] == 0x27 else { return nil }
            let quote = declaration[cursor]
            let nameStart = cursor + 1
            guard let nameEnd = declaration[nameStart...].firstIndex(of: quote), nameEnd > nameStart else { return nil }
            let name = declaration[nameStart..<nameEnd]
            guard isLetter(name.first!), name.allSatisfy({ isLetter($0) || isDigit($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D }) else {
                return nil
            }
            return String(decoding: name, as: UTF8.self)
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    private static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
