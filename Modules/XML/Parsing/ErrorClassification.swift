internal import CLibXML2

/// Turns libxml2's structured errors into ``XMLError``s: which reason, where, in whose words.
enum ErrorClassification {
    // xmlParserErrors values (stable across libxml2 versions).
    private static let documentEmpty: Int32 = 4          // XML_ERR_DOCUMENT_EMPTY
    private static let documentEnd: Int32 = 5            // XML_ERR_DOCUMENT_END
    private static let invalidCharacter: Int32 = 9       // XML_ERR_INVALID_CHAR
    private static let undeclaredEntityWarning: Int32 = 27 // XML_WAR_UNDECLARED_ENTITY
    private static let encodingCodes: Set<Int32> = [
        31, // XML_ERR_UNKNOWN_ENCODING
        32, // XML_ERR_UNSUPPORTED_ENCODING
        79, // XML_ERR_ENCODING_NAME
        81, // XML_ERR_INVALID_ENCODING
    ]

    /// How libxml2 words its hard limits (the ones `XML_PARSE_HUGE` would lift): nesting depth,
    /// 10 MB of input held for an unfinished construct, name, value, comment and text sizes.
    private static let limitPhrases = ["XML_PARSE_HUGE", "Huge input lookup", "too long", "too big", "Excessive depth"]

    /// Records `error` in `state` when it is the first error and not a mere warning; from then on
    /// the state takes no more events, and the parser's owner stops feeding once the current call
    /// returns. (The parser is not halted from here: libxml2 may still be reading its buffer
    /// after reporting, and for fatal errors it disables SAX itself.)
    static func record(_ error: xmlError, state: ParserState, parser: xmlParserCtxtPtr) {
        guard state.error == nil else { return }
        let code = error.code
        let isWarning = error.level.rawValue < XML_ERR_ERROR.rawValue
        // An undeclared entity is only a warning when an (unloaded) external DTD might declare
        // it; its text would silently vanish, so it is refused like the DTD itself.
        if isWarning, code != undeclaredEntityWarning { return }
        // Validity errors (libxml2's DTD and validation domains, at the error level) are not
        // well-formedness errors, and Courier does not validate: libxml2's tree builder reports
        // some (an element declared twice, two ID attributes for one element, a duplicate xml:id)
        // that the event parser never sees, so they failed a document only as a tree (found by
        // the `xml` fuzz target). An undeclared parameter entity, raised in the DTD domain, stays
        // refused below.
        let validity = error.domain == Int32(XML_FROM_VALID.rawValue) || error.domain == Int32(XML_FROM_DTD.rawValue)
        if validity, error.level == XML_ERR_ERROR, code != undeclaredEntityWarning { return }

        let libxmlMessage = message(error)
        // The bytes fed are judged as ASCII, which UTF-16 and other encodings are not ("\n\n" is
        // U+0A0A there): what libxml2 decoded says whether a character came in, so the reason does
        // not depend on where the bytes were cut.
        let sawContent = state.sawContent || cxml_input_holds_content(parser) != 0
        var reason = XMLError.Reason.malformed
        var text = libxmlMessage
        if code == undeclaredEntityWarning {
            reason = .externalEntityRefused
            text = libxmlMessage + " (an external DTD that could declare it is never loaded)"
        } else if encodingCodes.contains(code) || error.domain == Int32(XML_FROM_I18N.rawValue)
                    || (code == invalidCharacter && libxmlMessage.hasPrefix("Input is not proper UTF-8")) {
            reason = .encoding
            if error.domain == Int32(XML_FROM_I18N.rawValue), let name = decoderName(parser) {
                // "input conversion failed due to input error, bytes 0xE8 0x62 …" names no encoding.
                text = "bytes that are not valid \(name): " + libxmlMessage
            }
        } else if limitPhrases.contains(where: libxmlMessage.contains) {
            reason = .tooLarge
        } else if code == documentEmpty, !sawContent {
            reason = .empty
        } else if state.finishing, endedEarly(code: code, parser: parser) {
            if sawContent {
                reason = .truncated
                // At the end of the input the push parser says "Extra content at the end of the
                // document" even when content is missing: say what happened instead.
                if code == documentEnd {
                    let element = parser.pointee.name.map { " in tag " + String(cString: $0) } ?? ""
                    text = "Premature end of data\(element)"
                }
            } else {
                reason = .empty
                text = "Document is empty"
            }
        }
        state.record(XMLError(
            reason: reason, message: text, line: error.line > 0 ? Int(error.line) : nil,
            column: error.int2 > 0 ? Int(error.int2) : nil, code: Int(code)
        ))
    }

    /// True when an error raised by the final call means "the input ended too soon": libxml2's
    /// own end-of-input check (`XML_ERR_DOCUMENT_END` while the document is still open, not in
    /// its epilog), or any error met with no input left to read (`<foo`, `<a x="1`).
    private static func endedEarly(code: Int32, parser: xmlParserCtxtPtr) -> Bool {
        if code == documentEnd { return parser.pointee.instate != XML_PARSER_EPILOG }
        return cxml_input_remaining(parser) == 0
    }

    /// The name of the converter libxml2 decodes the document with, if any.
    static func decoderName(_ parser: xmlParserCtxtPtr) -> String? {
        guard let name = parser.pointee.input?.pointee.buf?.pointee.encoder?.pointee.name else { return nil }
        return String(cString: name)
    }

    /// libxml2's message without its trailing newline.
    private static func message(_ error: xmlError) -> String {
        guard let raw = error.message else { return "libxml2 error \(error.code)" }
        var text = String(cString: raw)
        while text.last == "\n" || text.last == " " { text.removeLast() }
        return text
    }
}
