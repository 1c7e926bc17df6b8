internal import CLibXML2

/// `xmlInitParser` sets up libxml2's global state; it must run once before any thread parses.
private let libxml2Ready: Bool = {
    xmlInitParser()
    return true
}()

/// One libxml2 push parser (`xmlCreatePushParserCtxt` + `xmlParseChunk`), hardened: every parse
/// in CourierXML, SAX or DOM, buffered or streaming, goes through this type.
///
/// The context's SAX handler refuses what is unsafe before libxml2 acts on it: any entity
/// declaration, an external DTD, a reference to an entity nobody declared (see
/// ``SecurityCallbacks``). Errors arrive through the structured `serror` callback of the
/// context (never libxml2's global handlers, never stderr), and the first one wins.
///
/// Not thread-safe: one owner feeds it, from one thread at a time (libxml2 contexts are not
/// shared). It is not `Sendable`, so the compiler keeps it that way.
final class PushParser {
    /// What the parser produces.
    enum Mode {
        /// SAX events, gathered in the state (nothing is built).
        case events
        /// A libxml2 tree (`xmlDoc`), taken with ``takeDocument()``; `keepsBlankText: false`
        /// drops white-space-only text between elements (what `xmllint --format` parses with).
        case tree(keepsBlankText: Bool)
    }

    let state: ParserState
    private let context: xmlParserCtxtPtr
    private var done = false

    /// The `charset` of the body's `Content-Type`, applied once the first bytes are known.
    private let charset: String?

    /// A parser. `charset` is the `charset` parameter of the body's `Content-Type`: when given it
    /// wins over the document's own declaration (RFC 7303 §3.2), and an unknown one is an
    /// ``XMLError/Reason/encoding`` error. A byte-order mark at the start of the body wins over
    /// it (as in the WHATWG encoding standard): told the encoding, libxml2 takes the mark for a
    /// character and fails the document ("Document is empty").
    init(mode: Mode, options: XMLParseOptions, charset: String? = nil) throws(XMLError) {
        _ = libxml2Ready
        self.charset = charset
        var sax = xmlSAXHandler()
        var extraOptions: Int32 = 0
        switch mode {
        case .events:
            cxml_sax_init_empty(&sax)
            EventCallbacks.install(in: &sax)
        case .tree(let keepsBlankText):
            cxml_sax_init_tree_builder(&sax)
            if !keepsBlankText { extraOptions |= Int32(XML_PARSE_NOBLANKS.rawValue) }
        }
        SecurityCallbacks.install(in: &sax, buildsTree: { if case .tree = mode { true } else { false } }())
        if charset != nil { extraOptions |= Int32(XML_PARSE_IGNORE_ENC.rawValue) }

        guard let context = xmlCreatePushParserCtxt(&sax, nil, nil, 0, nil) else {
            throw XMLError(reason: .tooLarge, message: "libxml2 could not allocate a parser")
        }
        self.context = context
        if case .events = mode { state = ParserState(collectsEvents: true, options: options) } else {
            state = ParserState(collectsEvents: false, options: options)
        }
        state.dictionary = context.pointee.dict
        context.pointee._private = Unmanaged.passUnretained(state).toOpaque()
        _ = cxml_harden(context, extraOptions)

        if let charset {
            guard let handler = xmlFindCharEncodingHandler(charset) else {
                throw XMLError(reason: .encoding, message: "unsupported encoding \(charset) (the charset of the Content-Type)")
            }
            // Only a check that it exists: the switch waits for the first bytes (startParsing).
            xmlCharEncCloseFunc(handler)
        }
    }

    deinit {
        if let document = context.pointee.myDoc {
            xmlFreeDoc(document)
            context.pointee.myDoc = nil
        }
        context.pointee._private = nil
        xmlFreeParserCtxt(context)
    }

    /// libxml2 is fed at most this many bytes per call, so each call's events stay few and a
    /// huge buffer never overflows `xmlParseChunk`'s `int` size.
    static let pieceSize = 64 * 1024

    /// The start of the document, held until its prolog has ended (see ``PrologScanner``), then
    /// given to libxml2 in one piece. libxml2 reads the start of a document (byte-order mark,
    /// encoding signature) from what it has when it starts, and decides whether a document type
    /// declaration has arrived by looking for any `>`: fed the start in pieces, it failed
    /// documents that parse whole (a byte-order mark with a charset, "Document is empty" on EF BB;
    /// a `>` in a DOCTYPE's system literal, "Unfinished System or Public ID").
    private var held: [UInt8] = []
    private var scanner: PrologScanner?
    private var started = false
    /// Bytes needed to tell the encoding (libxml2 looks at four too).
    private static let headSize = 4
    /// Past this many held bytes the prolog goes to libxml2 as it comes: a larger prolog is not
    /// worth the memory (entity declarations, the only large thing a prolog could need, are
    /// refused anyway).
    static let maximumHeldProlog = 1 << 20

    /// Whether libxml2 may still choose the document's decoder: until it has read past the XML
    /// declaration (or been told a charset).
    private var decoderUnsettled = true
    /// The rest of a document libxml2 decodes with ICU, given to it in one piece by ``finish()``
    /// (`nil` for every other document). libxml2 2.9 ends the ICU conversion at the end of each
    /// pushed chunk, so a character cut by a chunk's end fails a document that parses whole, and
    /// a bad sequence cut by one is dropped without an error (`cxml_input_decodes_with_icu`).
    /// Events of such a document come at the end; its memory is the document's size.
    private var heldForTheEnd: [UInt8]?

    /// Parses the next bytes of the document; events (in ``Mode/events``) wait in ``state``.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(XMLError) {
        if let error = state.error { throw error }
        guard !done, !bytes.isEmpty else { return }
        if started { return try parse(bytes) }
        var rest = bytes
        if scanner == nil {
            let needed = min(Self.headSize - held.count, rest.count)
            held += rest.prefix(needed)
            rest = UnsafeRawBufferPointer(rebasing: rest[needed...])
            guard held.count >= Self.headSize else { return }
            guard let encoding = PrologScanner.Encoding.detect(head: held, charset: charset) else {
                try startParsing()
                return try parse(rest)
            }
            var scanner = PrologScanner(encoding: encoding)
            let ended = held.withUnsafeBytes { scanner.scan($0) } != nil
            self.scanner = scanner
            if ended {
                try startParsing()
                return try parse(rest)
            }
        }
        if let end = scanner?.scan(rest) {
            held += rest.prefix(end)
            try startParsing()
            return try parse(UnsafeRawBufferPointer(rebasing: rest[end...]))
        }
        held += rest
        if held.count > Self.maximumHeldProlog { try startParsing() }
    }

    /// Applies the charset unless the first bytes are a byte-order mark, and hands the held
    /// bytes to libxml2 in one piece.
    private func startParsing() throws(XMLError) {
        started = true
        scanner = nil
        let marks: [[UInt8]] = [[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
        if let charset, !marks.contains(where: held.starts(with:)) {
            guard let handler = xmlFindCharEncodingHandler(charset), xmlSwitchToEncoding(context, handler) == 0 else {
                let error = XMLError(reason: .encoding, message: "libxml2 cannot decode \(charset) (the charset of the Content-Type)")
                state.record(error)
                done = true
                throw error
            }
        }
        settleDecoder()
        let prolog = held
        held = []
        var failure: XMLError?
        prolog.withUnsafeBytes { raw in
            do throws(XMLError) { try parse(raw, pieceSize: max(1, min(raw.count, Int(Int32.max)))) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, pieceSize: Int = PushParser.pieceSize) throws(XMLError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        if !state.sawContent { state.sawContent = Self.holdsContent(bytes) }
        var offset = 0
        while offset < bytes.count {
            if heldForTheEnd != nil {
                heldForTheEnd?.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                return
            }
            let count = min(pieceSize, bytes.count - offset)
            try push(UnsafeRawBufferPointer(start: base + offset, count: count))
            offset += count
            if decoderUnsettled { settleDecoder() }
        }
    }

    /// One `xmlParseChunk` call; `bytes.count` fits an `Int32`.
    private func push(_ bytes: UnsafeRawBufferPointer) throws(XMLError) {
        let channels = cxml_route_context_free_errors(Self.contextFreeError, UnsafeMutableRawPointer(context))
        let status = xmlParseChunk(context, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count), 0)
        cxml_restore_error_channels(channels)
        try check(status)
    }

    /// Where the errors libxml2 raises without a parser context go while this parser runs (the
    /// context given is the parser's): a converter's failure to decode the document's bytes is
    /// the one that matters, and it fails the document like any other error.
    private static let contextFreeError: xmlStructuredErrorFunc = { context, error in
        guard let (state, parser) = ParserState.from(context), let error else { return }
        ErrorClassification.record(error.pointee, state: state, parser: parser)
    }

    /// Starts holding the rest of the document once libxml2 decodes it with ICU, and stops
    /// asking once libxml2 is past the point where it picks a decoder.
    private func settleDecoder() {
        if cxml_input_decodes_with_icu(context) != 0 {
            heldForTheEnd = []
            decoderUnsettled = false
        } else if context.pointee.instate != XML_PARSER_START {
            decoderUnsettled = false
        }
    }

    /// Ends the document: a document that is not complete fails here
    /// (``XMLError/Reason/truncated`` or ``XMLError/Reason/empty``).
    func finish() throws(XMLError) {
        guard !done else {
            if let error = state.error { throw error }
            return
        }
        if !started { try startParsing() }
        if let held = heldForTheEnd, !held.isEmpty {
            heldForTheEnd = nil
            guard held.count <= Int(Int32.max) else {
                done = true
                let error = XMLError(reason: .tooLarge, message: "a document libxml2 decodes with ICU is parsed in one piece, of at most \(Int32.max) bytes")
                state.record(error)
                throw error
            }
            var failure: XMLError?
            held.withUnsafeBytes { raw in
                do throws(XMLError) { try push(raw) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        state.finishing = true
        let channels = cxml_route_context_free_errors(Self.contextFreeError, UnsafeMutableRawPointer(context))
        let status = xmlParseChunk(context, nil, 0, 1)
        cxml_restore_error_channels(channels)
        state.flushCharacters()
        try check(status)
        done = true
    }

    /// The tree libxml2 built (``Mode/tree(keepsBlankText:)`` after ``finish()``); the caller
    /// owns it and frees it with `xmlFreeDoc`.
    func takeDocument() -> xmlDocPtr? {
        let document = context.pointee.myDoc
        context.pointee.myDoc = nil
        return document
    }

    private func check(_ status: Int32) throws(XMLError) {
        if let error = state.error {
            done = true
            throw error
        }
        // Errors all pass through `serror`; this covers one that did not, should libxml2 stop
        // without saying why.
        if status != 0, context.pointee.wellFormed == 0 || context.pointee.instate == XML_PARSER_EOF {
            done = true
            let error = XMLError(reason: .malformed, message: "libxml2 stopped with error \(status)", code: Int(status))
            state.record(error)
            throw error
        }
    }

    /// True when `bytes` hold something other than XML white space and a UTF-8 byte-order mark.
    private static func holdsContent(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.contains { byte in
            byte != 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D && byte != 0xEF && byte != 0xBB && byte != 0xBF
        }
    }
}

extension ParserState {
    /// The state behind a libxml2 callback's context pointer (the parser context itself, since
    /// the parser is created without user data).
    static func from(_ context: UnsafeMutableRawPointer?) -> (ParserState, xmlParserCtxtPtr)? {
        guard let context else { return nil }
        let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let state = parser.pointee._private else { return nil }
        return (Unmanaged<ParserState>.fromOpaque(state).takeUnretainedValue(), parser)
    }
}
