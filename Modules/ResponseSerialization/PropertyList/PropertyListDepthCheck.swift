import FoundationEssentials

/// Refuses property lists nested deeper than a bound before they reach `PropertyListDecoder`,
/// whose recursion a hostile document (100,000 nested `<array>`s, or a binary plist whose array
/// holds itself) would otherwise run off the end of the stack.
enum PropertyListDepthCheck {
    /// Deeper documents are refused.
    static let maximumDepth = 512
    /// Binary plists whose walk reaches more objects than this are refused (shared references
    /// can make a small file a huge tree). Counted as they are found, so the walk's own stack stays
    /// within this too.
    static let maximumVisits = 1_000_000

    /// Throws when `data` nests too deeply; says nothing about other malformations, which the
    /// decoder reports.
    static func check(_ data: Data) throws(ResponseSerializationError) {
        let bytes = data.startIndex == 0 ? data : Data(data)
        // The decoder reads any `bplist0` and one more byte as binary (CoreFoundation's rule since 10.6), so this
        // must too: with `bplist00` only, `bplist01` or `bplist0-` took the XML count and reached the decoder unwalked.
        if bytes.starts(with: Array("bplist0".utf8)) {
            try checkBinary(bytes)
        } else {
            try checkXML(bytes)
        }
    }

    /// Counts how deep elements nest: every start tag that does not close itself opens one and every end tag
    /// closes one, whatever its name or the spaces and attributes inside it (`<array\n>` is an array to the
    /// decoder, and once passed a check that knew only `<array>`, `<array/>` and `<array ...>`). Comments, CDATA
    /// sections, processing instructions and declarations are skipped whole, so a tag inside them counts for
    /// nothing. The bound leaves room for the `plist` element and a leaf inside the deepest container.
    private static func checkXML(_ bytes: Data) throws(ResponseSerializationError) {
        var depth = 0
        var index = 0
        let count = bytes.count
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if let skipped = skipMarkup(bytes, at: index) {
                index = skipped
                continue
            }
            // The tag's end: the first `>` outside a quoted attribute value.
            var end = index + 1
            var quote: UInt8?
            while end < count {
                let byte = bytes[end]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    break
                }
                end += 1
            }
            if index + 1 < count, bytes[index + 1] == UInt8(ascii: "/") {
                depth -= 1
            } else if end < count, bytes[end - 1] != UInt8(ascii: "/") {
                depth += 1
                if depth > maximumDepth + 2 { throw tooDeep() }
            }
            index = end + 1
        }
    }

    /// Where markup that is no element ends (a comment, a CDATA section, a processing instruction, a declaration),
    /// when one starts at `index`; `nil` for a tag.
    private static func skipMarkup(_ bytes: Data, at index: Int) -> Int? {
        for (opening, closing) in [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">")] where starts(bytes, with: opening, at: index) {
            var position = index + opening.utf8.count
            while position < bytes.count, !starts(bytes, with: closing, at: position) { position += 1 }
            return position + closing.utf8.count
        }
        return nil
    }

    private static func starts(_ bytes: Data, with text: String, at offset: Int) -> Bool {
        var position = offset
        for byte in text.utf8 {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
        }
        return true
    }

    /// Walks the object graph from the top object without recursion, bounding depth and visits.
    private static func checkBinary(_ bytes: Data) throws(ResponseSerializationError) {
        let count = bytes.count
        guard count >= 40 else { return }
        let trailer = count - 32
        let offsetSize = Int(bytes[trailer + 6]), referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
              let objects = integer(bytes, at: trailer + 8, size: 8),
              let top = integer(bytes, at: trailer + 16, size: 8),
              let table = integer(bytes, at: trailer + 24, size: 8),
              objects > 0, objects <= count, top < objects, table < count
        else { return }   // malformed: the decoder will say so

        var stack: [(object: Int, depth: Int)] = [(top, 1)]
        var visits = 1
        while let (object, depth) = stack.popLast() {
            if depth > maximumDepth { throw tooDeep() }
            guard let offset = integer(bytes, at: table + object * offsetSize, size: offsetSize), offset < trailer else { continue }
            let marker = bytes[offset]
            let kind = marker >> 4
            // Data (4), strings (5, 6), arrays (A), sets (C), dictionaries (D): a length, in the marker's low bits
            // or, when those are all set, as an integer object after it.
            guard [0x4, 0x5, 0x6, 0xA, 0xC, 0xD].contains(kind) else { continue }
            var length = Int(marker & 0x0F)
            var start = offset + 1
            if length == 0x0F {
                // Foundation's decoder traps on a container count past `Int.max` (an 8-byte or 16-byte length of
                // `FF…`, found by the `property-list` fuzz target): a length must be an integer of 1, 2, 4, 8 or 16
                // bytes whose value fits the file.
                guard start < trailer, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 4 else { throw impossibleLength() }
                let size = 1 << Int(bytes[start] & 0x0F)
                guard start + 1 + size <= trailer else { throw impossibleLength() }
                if size == 16 {
                    for position in 0..<8 where bytes[start + 1 + position] != 0 { throw impossibleLength() }
                }
                guard let value = integer(bytes, at: start + 1 + size - min(size, 8), size: min(size, 8)) else { throw impossibleLength() }
                length = value
                start += 1 + size
            }
            let unit = kind == 0x6 ? 2 : kind == 0xD ? 2 * referenceSize : kind >= 0xA ? referenceSize : 1
            guard start <= trailer, length <= (trailer - start) / unit else { throw impossibleLength() }
            guard kind >= 0xA else { continue }
            // A container may name one object many times (an array of a thousand equal strings holds one string
            // object), so its references are bounded by the bytes they take, not by the count of objects: an array
            // naming itself three times was once left to the decoder, whose recursion then ran off the stack.
            let references = kind == 0xD ? length * 2 : length
            for position in 0..<references {
                // A reference out of range fails the decoder when it reaches it, maybe after the others: walk them all.
                guard let child = integer(bytes, at: start + position * referenceSize, size: referenceSize), child < objects else { continue }
                visits += 1
                if visits > maximumVisits {
                    throw ResponseSerializationError(.invalidPropertyList, detail: "the property list expands to more than \(maximumVisits) objects")
                }
                stack.append((child, depth + 1))
            }
        }
    }

    private static func impossibleLength() -> ResponseSerializationError {
        ResponseSerializationError(.invalidPropertyList, detail: "an object of the property list has a length its bytes cannot hold")
    }

    /// A big-endian unsigned integer of `size` bytes at `offset`, or `nil` out of bounds.
    private static func integer(_ bytes: Data, at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size > 0, offset + size <= bytes.count else { return nil }
        var value: UInt64 = 0
        for position in 0..<size { value = value << 8 | UInt64(bytes[offset + position]) }
        return value > UInt64(Int.max / 2) ? nil : Int(value)
    }

    private static func tooDeep() -> ResponseSerializationError {
        ResponseSerializationError(.invalidPropertyList, detail: "the property list nests deeper than \(maximumDepth) levels")
    }
}
