import FoundationEssentials

/// Refuses property lists nested deeper than a bound before they reach `PropertyListDecoder`,
/// whose recursion a hostile document (100,000 nested `<array>`s, or a binary plist whose array
/// holds itself) would otherwise run off the end of the stack.
enum PropertyListDepthCheck {
    /// Deeper documents are refused.
    static let maximumDepth = 512
    /// Binary plists whose walk visits more objects than this are refused (shared references
    /// can make a small file a huge tree).
    static let maximumVisits = 1_000_000

    /// Throws when `data` nests too deeply; says nothing about other malformations, which the
    /// decoder reports.
    static func check(_ data: Data) throws(ResponseSerializationError) {
        let bytes = data.startIndex == 0 ? data : Data(data)
        if bytes.starts(with: Array("bplist00".utf8)) {
            try checkBinary(bytes)
        } else {
            try checkXML(bytes)
        }
    }

    /// Counts open `<array>`/`<dict>` elements (self-closing ones excluded) against closes.
    private static func checkXML(_ bytes: Data) throws(ResponseSerializationError) {
        var depth = 0
        var index = 0
        let count = bytes.count
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            let closing = index + 1 < count && bytes[index + 1] == UInt8(ascii: "/")
            let nameStart = closing ? index + 2 : index + 1
            let isContainer = matches("array", at: nameStart, in: bytes) || matches("dict", at: nameStart, in: bytes)
            var end = nameStart
            while end < count, bytes[end] != UInt8(ascii: ">") { end += 1 }
            if isContainer {
                if closing {
                    depth -= 1
                } else if end > 0, end < count, bytes[end - 1] != UInt8(ascii: "/") {
                    depth += 1
                    if depth > maximumDepth { throw tooDeep() }
                }
            }
            index = end + 1
        }
    }

    private static func matches(_ name: String, at offset: Int, in bytes: Data) -> Bool {
        let utf8 = Array(name.utf8)
        guard offset + utf8.count < bytes.count else { return false }
        for (position, byte) in utf8.enumerated() where bytes[offset + position] != byte { return false }
        let next = bytes[offset + utf8.count]
        return next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == UInt8(ascii: " ")
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
        var visits = 0
        while let (object, depth) = stack.popLast() {
            visits += 1
            if depth > maximumDepth { throw tooDeep() }
            if visits > maximumVisits {
                throw ResponseSerializationError(.invalidPropertyList, detail: "the property list expands to more than \(maximumVisits) objects")
            }
            guard let offset = integer(bytes, at: table + object * offsetSize, size: offsetSize), offset < trailer else { continue }
            let marker = bytes[offset]
            let kind = marker >> 4
            guard kind == 0xA || kind == 0xC || kind == 0xD else { continue }   // array, set, dictionary
            var length = Int(marker & 0x0F)
            var start = offset + 1
            if length == 0x0F {
                guard start < trailer, bytes[start] >> 4 == 0x1 else { continue }
                let size = 1 << Int(bytes[start] & 0x0F)
                guard size <= 8, let value = integer(bytes, at: start + 1, size: size) else { continue }
                length = value
                start += 1 + size
            }
            let references = kind == 0xD ? length * 2 : length
            guard references >= 0, references <= objects * 2 else { continue }
            for position in 0..<references {
                guard let child = integer(bytes, at: start + position * referenceSize, size: referenceSize), child < objects else { break }
                stack.append((child, depth + 1))
            }
        }
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
