import CLibXML2
@testable import CourierXML
import FoundationEssentials

/// The XML module's parse paths: the event parser fed whole (`XMLSAXParser.events()` and `parse(_:)`), the
/// push parser (`XMLEventParser`) fed in chunks cut at fuzzed points and then a byte at a time, and the
/// document parser (`XMLDocument`), all with fuzzed options and `charset`.
///
/// For any bytes, every path gives events (or a document) or an `XMLError`, never a trap or a hang; cutting the
/// input differently gives the same events, or the same events before the same error reason, since an event is
/// only handed out once complete (where libxml2 2.9's push parser itself depends on the cut — bad UTF-8, NUL,
/// a failed encoding conversion — both must fail, see `agree`);
/// `parse(_:)` hands out exactly what `events()` returns. The document parser
/// agrees with the event parser: both succeed or both fail for the same reason, and on success the document's
/// nodes are the tree the events describe (adjacent character data merged, as in the DOM). Events nest: every
/// end matches the open start, one root element, at most 257 levels (the limit the event parser shares with
/// libxml2's tree builder).
///
/// What must never happen, whatever the bytes: libxml2 loading anything (a loader installed here fails the
/// run on any attempt, so an external entity, an external DTD or an XInclude is refused or ignored, never
/// fetched) and entity expansion (the character data, attribute values, comments and instructions of a
/// document, in UTF-8, are at most three bytes per input byte: no declared entity grows the output).
enum XMLFuzz: FuzzTarget {
    static let name = "xml"

    /// Fails the run on the first load libxml2 attempts (installed once, process-wide).
    static let loaderInstalled: Bool = {
        xmlSetExternalEntityLoader { url, publicID, _ in
            let address = url.map { String(cString: $0) } ?? publicID.map { String(cString: $0) } ?? "(nil)"
            fatalError("libxml2 tried to load \(address)")
        }
        return true
    }()

    static let charsets: [String?] = [nil, nil, nil, nil, "utf-8", "ISO-8859-1", "UTF-16", "x-no-such-charset"]

    static func run(_ input: FuzzInput) {
        _ = loaderInstalled
        let flags = input.byte()
        let options = XMLParseOptions(allowsExternalDTDReference: flags & 1 != 0)
        let charset = charsets[Int(flags >> 1) & 7]
        let cutCount = input.int(in: 0...8)
        let cutSeeds = (0..<cutCount).map { _ in input.int(in: 0...65_535) }
        let document = input.rest()
        let cuts = Set(cutSeeds.map { $0 % (document.count + 1) }).sorted()

        let sax = XMLSAXParser(data: Data(document), options: options, charset: charset)
        let whole = Outcome { () throws(XMLError) in try sax.events() }
        var handled: [XMLEvent] = []
        let handledError: XMLError?
        do {
            try sax.parse { handled.append($0) }
            handledError = nil
        } catch let error as XMLError {
            handledError = error
        } catch {
            fatalError("parse(_:) threw \(error)")
        }
        precondition(handledError?.reason == whole.error?.reason, "parse(_:) ends with \(String(describing: handledError)), events() with \(String(describing: whole.error))")
        if whole.error == nil { precondition(handled == whole.events, "parse(_:) handed out other events than events()") }

        let pieces = split(document, at: cuts)
        let chunked = push(pieces, options: options, charset: charset)
        // A NUL or another control character XML forbids, in a document read as UTF-8, falls under the libxml2
        // limits `agree` lists, like bad UTF-8.
        let forbidden = document.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        let forbiddenInUTF8 = forbidden && (charset == nil || charset?.lowercased() == "utf-8")
        let validUTF8 = String(validating: document, as: UTF8.self) != nil && !forbiddenInUTF8
        // UCS-4 in its four byte orders, with or without a byte-order mark, and EBCDIC: what libxml2 detects
        // and converts through iconv.
        let iconvSignatures: [[UInt8]] = [
            [0, 0, 0, 0x3C], [0x3C, 0, 0, 0], [0, 0, 0x3C, 0], [0, 0x3C, 0, 0], [0, 0, 0xFE, 0xFF], [0xFF, 0xFE, 0, 0],
            [0x4C, 0x6F, 0xA7, 0x94],
        ]
        let documentType = document.indices.contains { document[$0...].starts(with: Array("<!DOCTYPE".utf8)) }
        let wideEncoding = iconvSignatures.contains { document.starts(with: $0) }
        agree(chunked, whole, "cut at \(cuts)", validUTF8: validUTF8, wideEncoding: wideEncoding, documentType: documentType)
        if document.count <= 2048 {
            let bytewise = push(document.map { [$0] }, options: options, charset: charset)
            agree(bytewise, whole, "fed a byte at a time", validUTF8: validUTF8, wideEncoding: wideEncoding, documentType: documentType)
        }

        if let error = whole.error {
            precondition(!error.message.isEmpty, "an error without a message")
        } else {
            checkStructure(whole.events)
            let size = characterDataSize(whole.events)
            precondition(size <= 3 * document.count + 64, "\(size) bytes of character data from \(document.count) input bytes")
        }

        do {
            let parsed = try XMLDocument(data: Data(document), options: options, charset: charset)
            guard whole.error == nil else { fatalError("the document parses, the events fail with \(whole.error!)") }
            let expected = tree(from: whole.events)
            precondition(parsed.nodes == expected, "the document's nodes \(parsed.nodes) are not the tree of its events \(expected)")
            precondition(parsed.nodes.contains(.element(parsed.root)), "the root is not among the top-level nodes")
        } catch {
            precondition(error.reason == whole.error?.reason,
                         "the document fails with \(error), the events with \(String(describing: whole.error))")
        }
    }

    /// The events of one parse and the error that ended it.
    struct Outcome {
        var events: [XMLEvent] = []
        var error: XMLError?

        init() {}

        init(_ parse: () throws(XMLError) -> [XMLEvent]) {
            do { events = try parse() } catch { self.error = error }
        }
    }

    /// Feeds `pieces` to an `XMLEventParser` in turn, then finishes.
    static func push(_ pieces: [[UInt8]], options: XMLParseOptions, charset: String?) -> Outcome {
        var outcome = Outcome()
        do {
            let parser = try XMLEventParser(options: options, charset: charset)
            for piece in pieces { outcome.events += try parser.feed(piece) }
            outcome.events += try parser.finish()
        } catch {
            outcome.error = error
        }
        return outcome
    }

    /// The same events, or the same events before the same error reason.
    ///
    /// Exceptions, limits of libxml2 2.9's push parser that Courier does not work around; there both must
    /// succeed with the same events or both fail, for any reason:
    /// - a NUL byte (never allowed in XML) in a document read as UTF-8 is, to libxml2, the end of its buffer
    ///   when read whole (a truncation) and a bad character when it ends a chunk (an encoding error); another
    ///   control character XML forbids is an encoding error where libxml2 checks it, and goes unseen where it
    ///   only looks ahead (in an unterminated CDATA section read whole, a truncation);
    /// - bytes that are not UTF-8 in a document read as UTF-8 are an encoding error when libxml2 decodes a
    ///   character with at least four bytes after it in its buffer, and otherwise (where a chunk ended, near
    ///   the end, or where it tests one byte of a tag) the syntax error or truncation they cause;
    /// - in input it converts through iconv (UCS-4, EBCDIC, detected from the first four bytes), a unit the
    ///   converter cannot convert, or one cut by a chunk, fails the parse when the converter meets it, which
    ///   depends on the chunks ("switching encoding: encoder error" when the encoding is detected with the
    ///   bad unit already buffered, "invalid element name" whole and a truncation a byte at a time when a
    ///   tag holds a control character);
    /// - in a document Courier decodes itself (an encoding only ICU knows), bytes that are not in the encoding
    ///   fail it when the decoder meets them, and a syntax error before them fails it first only when libxml2
    ///   has looked far enough ahead to see it, which depends on the chunks (text before the root element,
    ///   then bad UTF-7: "Document is empty" a byte at a time, the decoder's error whole);
    /// - in a malformed document type declaration, libxml2's own look-ahead for the end of the internal subset
    ///   (quotes counted, comments not) decides how far it reads before it fails, so the reason can depend on
    ///   the cut (a truncation whole, a malformed declaration a byte at a time).
    ///
    /// A well-formed document type declaration is no exception: libxml2 decides that one has arrived by looking
    /// for any `>`, and failed a cut after a `>` in a quoted literal; `PushParser` now holds the prolog until it
    /// ends (`PrologScanner`), and this target checks that such documents parse the same however they are cut.
    static func agree(_ a: Outcome, _ b: Outcome, _ how: String, validUTF8: Bool, wideEncoding: Bool, documentType: Bool) {
        let libxml2Limits = ["encoder error", "conversion failed", "bytes that are not valid", "ends inside a character"]
        let knownLimit = !validUTF8 || wideEncoding || documentType || [a.error, b.error].contains { error in
            error.map { error in libxml2Limits.contains { error.message.contains($0) } } ?? false
        }
        if knownLimit {
            precondition((a.error == nil) == (b.error == nil), "\(how): \(String(describing: a.error)), whole: \(String(describing: b.error))")
        }
        precondition(knownLimit || a.error?.reason == b.error?.reason,
                     "\(how): \(String(describing: a.error)), whole: \(String(describing: b.error))")
        if a.error == nil {
            precondition(a.events == b.events, "\(how): other events than the whole document's")
        } else {
            // Events before an error are handed out only as far as the parser got: one cut may stop earlier.
            let shorter = min(a.events.count, b.events.count)
            precondition(a.events.prefix(shorter).dropLast() == b.events.prefix(shorter).dropLast(),
                         "\(how): other events than the whole document's before the error")
        }
    }

    static func split(_ bytes: [UInt8], at cuts: [Int]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            pieces.append(Array(bytes[start..<cut]))
            start = cut
        }
        return pieces
    }

    /// Starts and ends nest, with one root element, at most 257 deep; text is never empty (CDATA is, for an
    /// empty section, as the document keeps it) and consecutive runs of one kind only follow a full 64 KiB run.
    static func checkStructure(_ events: [XMLEvent]) {
        var open: [XMLName] = []
        var roots = 0
        var previous: XMLEvent?
        for event in events {
            switch event {
            case .startElement(let name, _, _):
                if open.isEmpty { roots += 1 }
                open.append(name)
                precondition(open.count <= ParserState.maximumDepth, "\(open.count) levels open")
            case .endElement(let name):
                precondition(open.popLast() == name, "end of \(name) does not close the open element")
            case .text(let text):
                precondition(!text.isEmpty, "an empty text event")
                precondition(!open.isEmpty, "text outside the root")
                if case .text(let before) = previous {
                    precondition(before.utf8.count > ParserState.characterRunLimit - 4, "two text events in a row")
                }
            case .cdata:
                if case .cdata(let before) = previous {
                    precondition(before.utf8.count > ParserState.characterRunLimit - 4, "two CDATA events in a row")
                }
            case .comment, .processingInstruction:
                break
            }
            previous = event
        }
        precondition(open.isEmpty, "\(open.count) elements still open after a successful parse")
        precondition(roots == 1, "\(roots) root elements")
    }

    /// Bytes of character data, attribute values, comments and instruction data: what entity expansion would grow.
    static func characterDataSize(_ events: [XMLEvent]) -> Int {
        var size = 0
        for event in events {
            switch event {
            case .startElement(_, let attributes, _):
                for attribute in attributes {
                    size += attribute.value.utf8.count
                    precondition(!attribute.value.contains("root:x:0:0"), "/etc/passwd in an attribute")
                }
            case .text(let text), .cdata(let text), .comment(let text):
                size += text.utf8.count
                precondition(!text.contains("root:x:0:0"), "/etc/passwd in the character data")
            case .processingInstruction(_, let data):
                size += data?.utf8.count ?? 0
            case .endElement:
                break
            }
        }
        return size
    }

    /// The nodes the events describe, as a DOM holds them: adjacent text merged, adjacent CDATA merged.
    static func tree(from events: [XMLEvent]) -> [XMLNode] {
        var top: [XMLNode] = []
        var open: [XMLElement] = []
        func add(_ node: XMLNode) {
            if open.isEmpty { top.append(node) } else { open[open.count - 1].children.append(node) }
        }
        func addCharacters(_ text: String, cdata: Bool) {
            guard !open.isEmpty else { return add(cdata ? .cdata(text) : .text(text)) }
            let children = open[open.count - 1].children
            switch (children.last, cdata) {
            case (.text(let before)?, false):
                open[open.count - 1].children[children.count - 1] = .text(before + text)
            case (.cdata(let before)?, true):
                open[open.count - 1].children[children.count - 1] = .cdata(before + text)
            default:
                add(cdata ? .cdata(text) : .text(text))
            }
        }
        for event in events {
            switch event {
            case .startElement(let name, let attributes, let namespaces):
                open.append(XMLElement(name: name, attributes: attributes, namespaces: namespaces))
            case .endElement:
                add(.element(open.removeLast()))
            case .text(let text):
                addCharacters(text, cdata: false)
            case .cdata(let text):
                addCharacters(text, cdata: true)
            case .comment(let text):
                add(.comment(text))
            case .processingInstruction(let target, let data):
                add(.processingInstruction(target: target, data: data))
            }
        }
        return top
    }
}
