/// Finds where the start of an XML document — its prolog, up to the end of a document type
/// declaration or the first element — ends, in bytes that arrive in pieces. Pure: no libxml2.
///
/// Why it exists: libxml2 2.9's push parser decides whether a document type declaration has
/// fully arrived by looking for a `>` in what it holds, without regard for quotes (and, in the
/// internal subset, for comments). A `>` inside a quoted system literal, cut by a chunk after
/// it, makes it parse the declaration too early and fail ("Unfinished System or Public ID") a
/// document that parses whole. ``PushParser`` holds the prolog until this scanner says it has
/// ended and gives it to libxml2 in one piece, so the way a body is cut never decides whether
/// it parses.
///
/// The scanner reads code units of the document's encoding (``Encoding``) and follows the XML
/// grammar only as far as it needs to find ends: quoted literals, comments, processing
/// instructions, the internal subset and the markup declarations in it. Anything it does not
/// expect ends the prolog as well: libxml2 then sees the bytes and reports the error itself.
struct PrologScanner {
    /// How code units are laid out in bytes.
    enum Encoding: Equatable {
        /// UTF-8 and the encodings that keep ASCII's bytes (ISO-8859-x, Windows-125x …).
        case asciiCompatible
        /// UTF-16 (two-byte units).
        case utf16(bigEndian: Bool)
        /// UCS-4 / UTF-32 (four-byte units).
        case ucs4(bigEndian: Bool)

        var unitSize: Int {
            switch self {
            case .asciiCompatible: 1
            case .utf16: 2
            case .ucs4: 4
            }
        }

        /// The encoding of a document from its first four bytes (or fewer, at its end) and the
        /// `charset` of its `Content-Type`, as libxml2 reads them: a byte-order mark first, then
        /// the layout of `<` and `?`, then the charset. `nil` when the layout is one the scanner
        /// cannot read (EBCDIC, unusual UCS-4 byte orders, a wide charset without a signature).
        static func detect(head: [UInt8], charset: String?) -> Encoding? {
            let first = Array(head.prefix(4)) + Array(repeating: 0xFF, count: max(0, 4 - head.count))
            switch (first[0], first[1], first[2], first[3]) {
            case (0x00, 0x00, 0xFE, 0xFF), (0x00, 0x00, 0x00, 0x3C): return .ucs4(bigEndian: true)
            case (0xFF, 0xFE, 0x00, 0x00), (0x3C, 0x00, 0x00, 0x00): return .ucs4(bigEndian: false)
            case (0xFE, 0xFF, _, _): return .utf16(bigEndian: true)
            case (0xFF, 0xFE, _, _): return .utf16(bigEndian: false)
            case (0xEF, 0xBB, 0xBF, _): return .asciiCompatible
            case (0x4C, 0x6F, 0xA7, 0x94), (0x00, 0x00, 0x3C, 0x00), (0x00, 0x3C, 0x00, 0x00): return nil
            default: break
            }
            let asciiUnit = { (byte: UInt8) in byte != 0 && byte < 0x80 }
            if first[0] == 0, first[2] == 0, asciiUnit(first[1]), asciiUnit(first[3]) { return .utf16(bigEndian: true) }
            if first[1] == 0, first[3] == 0, asciiUnit(first[0]), asciiUnit(first[2]) { return .utf16(bigEndian: false) }
            guard let charset = charset?.lowercased() else { return .asciiCompatible }
            let wide = ["utf-16", "utf16", "ucs-2", "ucs2", "utf-32", "utf32", "ucs-4", "ucs4", "ebcdic", "ibm0", "cp0", "cp1", "ibm1"]
            return wide.contains { charset.hasPrefix($0) } ? nil : .asciiCompatible
        }
    }

    private enum Place: Equatable {
        /// Between the constructs of the prolog.
        case between
        /// After `<`.
        case open
        /// After `<!`, with the letters read so far.
        case bang(String)
        case comment(dashes: Int)
        case processingInstruction(sawQuestionMark: Bool)
        /// In `<!DOCTYPE`, before any internal subset, in a quoted literal or not.
        case documentType(quote: UInt32?)
        /// In the internal subset, between declarations.
        case subset
        case subsetOpen
        case subsetBang(String)
        case subsetComment(dashes: Int)
        case subsetProcessingInstruction(sawQuestionMark: Bool)
        /// In a markup declaration of the internal subset (`<!ELEMENT …>`, `<!ATTLIST …>` …).
        case declaration(quote: UInt32?)
        /// After the `]` that ends the internal subset.
        case afterSubset
        case ended
    }

    private let encoding: Encoding
    private var place = Place.between
    /// The bytes of a code unit cut by the end of a piece.
    private var partialUnit: [UInt8] = []
    /// Code units read so far, up to three (enough to pass a UTF-8 byte-order mark).
    private var unitsRead = 0

    init(encoding: Encoding) {
        self.encoding = encoding
    }

    /// Whether the prolog has ended (at the end of a document type declaration, at the first
    /// element, or at something the prolog cannot hold).
    var hasEnded: Bool { place == .ended }

    /// Reads the next bytes; returns how many of them belong to the prolog when it ends within
    /// them, `nil` while it goes on.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard place != .ended else { return 0 }
        for (index, byte) in bytes.enumerated() {
            partialUnit.append(byte)
            guard partialUnit.count == encoding.unitSize else { continue }
            let unit = Self.value(of: partialUnit, encoding)
            partialUnit.removeAll(keepingCapacity: true)
            if unitsRead < 3, encoding == .asciiCompatible, unit == Self.utf8ByteOrderMark[unitsRead] {
                unitsRead += 1
                continue
            }
            unitsRead = 3
            step(unit)
            if place == .ended { return index + 1 }
        }
        return nil
    }

    private static func value(of bytes: [UInt8], _ encoding: Encoding) -> UInt32 {
        switch encoding {
        case .asciiCompatible: return UInt32(bytes[0])
        case .utf16(let bigEndian), .ucs4(let bigEndian):
            let ordered = bigEndian ? bytes : bytes.reversed()
            return ordered.reduce(0) { $0 << 8 | UInt32($1) }
        }
    }

    private static let lessThan: UInt32 = 0x3C, greaterThan: UInt32 = 0x3E, bang: UInt32 = 0x21, question: UInt32 = 0x3F
    private static let dash: UInt32 = 0x2D, quote: UInt32 = 0x22, apostrophe: UInt32 = 0x27
    private static let openBracket: UInt32 = 0x5B, closeBracket: UInt32 = 0x5D, byteOrderMark: UInt32 = 0xFEFF

    private static let utf8ByteOrderMark: [UInt32] = [0xEF, 0xBB, 0xBF]

    private static func isSpace(_ unit: UInt32) -> Bool { unit == 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D }

    /// Adds a letter after `<!`; a comment or a `DOCTYPE` keyword once complete, the end when
    /// the letters can no longer start one of `words`.
    private static func spell(_ read: String, _ unit: UInt32, words: [String]) -> String? {
        guard let scalar = Unicode.Scalar(unit) else { return nil }
        let next = read + String(Character(scalar))
        return words.contains { $0.hasPrefix(next) } ? next : nil
    }

    private mutating func step(_ unit: UInt32) {
        switch place {
        case .between:
            if unit == Self.lessThan { place = .open } else if !Self.isSpace(unit) && unit != Self.byteOrderMark { place = .ended }
        case .open:
            switch unit {
            case Self.question: place = .processingInstruction(sawQuestionMark: false)
            case Self.bang: place = .bang("")
            default: place = .ended  // the first element
            }
        case .bang(let read):
            guard let next = Self.spell(read, unit, words: ["--", "DOCTYPE"]) else { place = .ended; return }
            place = next == "--" ? .comment(dashes: 0) : next == "DOCTYPE" ? .documentType(quote: nil) : .bang(next)
        case .comment(let dashes):
            place = unit == Self.greaterThan && dashes >= 2 ? .between : .comment(dashes: unit == Self.dash ? dashes + 1 : 0)
        case .processingInstruction(let sawQuestionMark):
            place = unit == Self.greaterThan && sawQuestionMark ? .between : .processingInstruction(sawQuestionMark: unit == Self.question)
        case .documentType(let quote):
            if let quote {
                if unit == quote { place = .documentType(quote: nil) }
            } else if unit == Self.quote || unit == Self.apostrophe {
                place = .documentType(quote: unit)
            } else if unit == Self.openBracket {
                place = .subset
            } else if unit == Self.greaterThan {
                place = .ended
            }
        case .subset:
            if unit == Self.lessThan { place = .subsetOpen } else if unit == Self.closeBracket { place = .afterSubset }
        case .subsetOpen:
            switch unit {
            case Self.question: place = .subsetProcessingInstruction(sawQuestionMark: false)
            case Self.bang: place = .subsetBang("")
            default: place = .ended
            }
        case .subsetBang(let read):
            if read.isEmpty && unit == Self.dash {
                place = .subsetBang("-")
            } else if read == "-" {
                place = unit == Self.dash ? .subsetComment(dashes: 0) : .ended
            } else {
                place = .declaration(quote: nil)
                step(unit)
            }
        case .subsetComment(let dashes):
            place = unit == Self.greaterThan && dashes >= 2 ? .subset : .subsetComment(dashes: unit == Self.dash ? dashes + 1 : 0)
        case .subsetProcessingInstruction(let sawQuestionMark):
            place = unit == Self.greaterThan && sawQuestionMark ? .subset : .subsetProcessingInstruction(sawQuestionMark: unit == Self.question)
        case .declaration(let quote):
            if let quote {
                if unit == quote { place = .declaration(quote: nil) }
            } else if unit == Self.quote || unit == Self.apostrophe {
                place = .declaration(quote: unit)
            } else if unit == Self.greaterThan {
                place = .subset
            }
        case .afterSubset:
            if !Self.isSpace(unit) { place = .ended }
        case .ended:
            break
        }
    }
}
