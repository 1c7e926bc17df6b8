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
/// context, and a converter's through libxml2's per-thread structured channel, routed to this
/// parser for the length of each call (never stderr); the first one wins.
///
/// A document in an encoding only ICU knows is decoded to UTF-8 by ``ICUDecoder`` before libxml2
/// sees it, since libxml2 2.9's own use of ICU breaks characters cut by a chunk.
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
    /// The options given to `cxml_harden` (an ICU-decoded document adds `XML_PARSE_IGNORE_ENC`).
    private let extraOptions: Int32
    /// Set when Courier decodes the document (an encoding only ICU knows): every byte fed goes
    /// through it, and libxml2 reads UTF-8.
    private var decoder: ICUDecoder?

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

        self.extraOptions = extraOptions
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

    /// libxml2 is fed at most this many bytes per call (more when bytes held back by ``CutHazards``
    /// join them, and the held prolog excepted), so each call's events stay few and a huge buffer never
    /// overflows `xmlParseChunk`'s `int` size.
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

    /// Applies the charset unless the first bytes are a byte-order mark, chooses Courier's own
    /// decoding for an encoding only ICU knows, and hands the held bytes to libxml2 in one piece.
    private func startParsing() throws(XMLError) {
        started = true
        let marks: [[UInt8]] = [[0xEF, 0xBB, 0xBF], [0xFE, 0xFF], [0xFF, 0xFE]]
        let marked = marks.contains(where: held.starts(with:))
        if let charset, !marked {
            if ICUDecoder.isNeeded(for: charset) {
                try decode(with: charset)
            } else {
                guard let handler = xmlFindCharEncodingHandler(charset), xmlSwitchToEncoding(context, handler) == 0 else {
                    throw fail(XMLError(reason: .encoding, message: "libxml2 cannot decode \(charset) (the charset of the Content-Type)"))
                }
            }
        } else if charset == nil, !marked, let declared = XMLDeclaration.encoding(in: held), ICUDecoder.isNeeded(for: declared) {
            try decode(with: declared)
        }
        let prolog = held
        // A prolog the scanner saw end holds only whole constructs, so nothing of it is held back: a `<!-->` in a
        // DOCTYPE's literal is no comment, and holding the rest back would split the declaration libxml2 must
        // get in one piece. One that did not end (too large, or an encoding the scanner cannot read) may be cut.
        let ended = scanner?.hasEnded ?? false
        held = []
        scanner = nil
        var failure: XMLError?
        prolog.withUnsafeBytes { raw in
            do throws(XMLError) { try parse(raw, inOnePiece: true, holdingBack: !ended) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Decodes the document with ``ICUDecoder`` from now on, and has libxml2 take what it is given
    /// as UTF-8 whatever the declaration says.
    private func decode(with name: String) throws(XMLError) {
        do {
            decoder = try ICUDecoder(name: name)
        } catch {
            throw fail(error)
        }
        _ = cxml_harden(context, extraOptions | Int32(XML_PARSE_IGNORE_ENC.rawValue))
    }

    /// Parses bytes of the document: straight, or through the decoder; `inOnePiece` gives them (as
    /// decoded) to libxml2 in one `xmlParseChunk` call, as the held prolog must be, and without
    /// `holdingBack` nothing of them waits for the next bytes (``CutHazards``).
    private func parse(_ bytes: UnsafeRawBufferPointer, inOnePiece: Bool = false, holdingBack: Bool = true) throws(XMLError) {
        guard !bytes.isEmpty else { return }
        if !state.sawContent { state.sawContent = Self.holdsContent(bytes) }
        guard let decoder else {
            if !holdingBack { return try pushNow(bytes, pieceSize: Self.onePiece(bytes.count)) }
            return try push(bytes, pieceSize: inOnePiece ? Self.onePiece(bytes.count) : Self.pieceSize)
        }
        if inOnePiece {
            var decoded: [UInt8] = []
            var decodingFailure: XMLError?
            do throws(XMLError) {
                try decoder.decode(bytes, flush: false) { (utf8) throws(XMLError) in decoded += utf8 }
            } catch {
                decodingFailure = error
            }
            // What came before bytes that are not in the encoding is parsed first: an error libxml2
            // finds there comes first, as it does when the same bytes arrive in other pieces.
            try pushWhole(decoded, holdingBack: holdingBack)
            if let decodingFailure { throw fail(decodingFailure) }
        } else {
            var offset = 0
            while offset < bytes.count {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + Self.pieceSize)])
                offset += piece.count
                try run(decoder, piece, flush: false) { (utf8) throws(XMLError) in try push(utf8, pieceSize: Self.pieceSize) }
            }
        }
    }

    /// Decodes `bytes`, recording a failure like any other error.
    private func run(
        _ decoder: ICUDecoder, _ bytes: UnsafeRawBufferPointer, flush: Bool,
        into deliver: (UnsafeRawBufferPointer) throws(XMLError) -> Void
    ) throws(XMLError) {
        do {
            try decoder.decode(bytes, flush: flush, into: deliver)
        } catch {
            // An error libxml2 met in what was delivered came first and stays the one reported.
            throw fail(state.error ?? error)
        }
    }

    /// Bytes held back from libxml2 until more arrive (``CutHazards``): a `]` or `]]` at the end of
    /// a chunk, the start of a `<!--->` comment cut before its end.
    private var withheld: [UInt8] = []
    static let maximumWithheld = 10_000_000

    /// Hands bytes libxml2 reads to it, in `xmlParseChunk` calls of at most `pieceSize` bytes,
    /// holding back what a cut would let libxml2 misjudge until the next call (or ``finish()``).
    private func push(_ bytes: UnsafeRawBufferPointer, pieceSize: Int) throws(XMLError) {
        guard !bytes.isEmpty else { return }
        guard withheld.isEmpty else {
            // A comment held back for its `-->` grows without a rescan while none arrives: scanning the whole
            // held part again for each chunk made a body that never closes its comment, sent in small chunks,
            // cost time quadratic in its size (up to the 10 MB limit: minutes of CPU for one hostile body).
            if CutHazards.isOpenComment(withheld), !CutHazards.holdsClosing(withheld.suffix(2), bytes) {
                withheld.append(contentsOf: bytes)
                guard withheld.count > Self.maximumWithheld else { return }
                let all = withheld
                withheld = []
                return try pushWhole(all, holdingBack: false, pieceSize: pieceSize)
            }
            let joined = withheld + bytes
            // What was held back joins a call that was to be one piece without splitting it.
            let oneCall = joined.count <= pieceSize + withheld.count
            withheld = []
            return try pushWhole(joined, holdingBack: true, pieceSize: oneCall ? nil : pieceSize)
        }
        // Every call to libxml2 ends where the end of a chunk would be safe, not only the last: a buffer larger
        // than a piece is cut into calls too, and a cut there is judged as a chunk's end would be.
        var start = 0
        while start < bytes.count {
            let end = safeCut(in: bytes, from: start, pieceSize: pieceSize)
            guard end > start else {
                withheld = Array(bytes[start...])
                return
            }
            try pushNow(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), pieceSize: Self.onePiece(end - start))
            start = end
        }
    }

    /// Where the call to libxml2 that starts at `start` ends: within `pieceSize` bytes where ``CutHazards``
    /// allows a cut there, past a construct that must arrive whole once it has (a call larger than a piece),
    /// or `start` when such a construct has not ended in `bytes` (it waits for the next ones).
    private func safeCut(in bytes: UnsafeRawBufferPointer, from start: Int, pieceSize: Int) -> Int {
        var window = pieceSize
        while true {
            let stop = start + min(window, bytes.count - start)
            let end = start + CutHazards.releasable(UnsafeRawBufferPointer(rebasing: bytes[start..<stop]))
            if end > start { return end }
            // Past libxml2's own limit for one comment (without XML_PARSE_HUGE) it fails the document
            // anyway: holding more would only buffer a stream that never closes its comment.
            if stop - start > Self.maximumWithheld { return stop }
            if stop == bytes.count { return start }
            window *= 2
        }
    }

    /// `bytes` in one `xmlParseChunk` call (or calls of `pieceSize`), through ``push(_:pieceSize:)``
    /// when what ends them may still be held back, straight otherwise (at the end).
    private func pushWhole(_ bytes: [UInt8], holdingBack: Bool, pieceSize: Int? = nil) throws(XMLError) {
        var failure: XMLError?
        bytes.withUnsafeBytes { raw in
            let size = pieceSize ?? Self.onePiece(raw.count)
            do throws(XMLError) {
                if holdingBack { try push(raw, pieceSize: size) } else { try pushNow(raw, pieceSize: size) }
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// The piece size that hands `count` bytes over in one call (as far as `xmlParseChunk`'s `int` allows).
    private static func onePiece(_ count: Int) -> Int { max(1, min(count, Int(Int32.max))) }

    /// Records `error` as the parse's end and returns it to throw.
    private func fail(_ error: XMLError) -> XMLError {
        state.record(error)
        done = true
        return state.error ?? error
    }

    private func pushNow(_ bytes: UnsafeRawBufferPointer, pieceSize: Int) throws(XMLError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        var offset = 0
        while offset < bytes.count {
            let count = min(pieceSize, bytes.count - offset)
            let channels = cxml_route_context_free_errors(Self.contextFreeError, UnsafeMutableRawPointer(context))
            let status = xmlParseChunk(context, (base + offset).assumingMemoryBound(to: CChar.self), Int32(count), 0)
            cxml_restore_error_channels(channels)
            try check(status)
            offset += count
        }
    }

    /// Where the errors libxml2 raises without a parser context go while this parser runs (the
    /// context given is the parser's). Only a converter's failure to decode the document's bytes
    /// ("input conversion failed due to input error") fails the document: libxml2 2.9 reports it
    /// nowhere else, and goes on past the bytes when the same call decoded others first. Others
    /// raised there (a notation declared twice, say: a validity error) stay unheard, as before.
    private static let contextFreeError: xmlStructuredErrorFunc = { context, error in
        guard let error, error.pointee.domain == Int32(XML_FROM_I18N.rawValue),
              let (state, parser) = ParserState.from(context) else { return }
        ErrorClassification.record(error.pointee, state: state, parser: parser)
    }

    /// Ends the document: a document that is not complete fails here
    /// (``XMLError/Reason/truncated`` or ``XMLError/Reason/empty``).
    func finish() throws(XMLError) {
        guard !done else {
            if let error = state.error { throw error }
            return
        }
        if !started { try startParsing() }
        if let decoder {
            try run(decoder, UnsafeRawBufferPointer(start: nil, count: 0), flush: true) { (utf8) throws(XMLError) in
                try push(utf8, pieceSize: Self.pieceSize)
            }
        }
        if !withheld.isEmpty {
            let rest = withheld
            withheld = []
            try pushWhole(rest, holdingBack: false)
        }
        state.finishing = true
        let channels = cxml_route_context_free_errors(Self.contextFreeError, UnsafeMutableRawPointer(context))
        let status = xmlParseChunk(context, nil, 0, 1)
        cxml_restore_error_channels(channels)
        state.flushCharacters()
        try check(status)
        // libxml2 keeps the bytes of a character the body ended inside (an encoding iconv decodes)
        // and says nothing.
        let undecoded = cxml_input_undecoded(context)
        if undecoded > 0 {
            let name = ErrorClassification.decoderName(context) ?? "its encoding"
            throw fail(XMLError(reason: .encoding, message: "the document ends inside a character of \(name) (\(undecoded) bytes left)"))
        }
        done = true
    }

    /// The tree libxml2 built (``Mode/tree(keepsBlankText:)`` after ``finish()``); the caller
    /// owns it and frees it with `xmlFreeDoc`.
    func takeDocument() -> xmlDocPtr? {
        let document = context.pointee.myDoc
        context.pointee.myDoc = nil
        // libxml2, told to ignore the declaration of a document Courier decoded, records no encoding.
        if let document, document.pointee.encoding == nil, let decoder, charset == nil {
            document.pointee.encoding = UnsafePointer(xmlStrdup(decoder.name))
        }
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
