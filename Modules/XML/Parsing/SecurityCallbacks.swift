internal import CLibXML2

/// The SAX callbacks that keep every parse safe, installed in event and tree parsers alike.
///
/// libxml2 2.9.14 (Debian 12) has no `XML_PARSE_NO_XXE` (2.13+) and no entity amplification
/// check (2.11+), so Courier refuses at the source rather than bounding expansion:
/// - `entityDecl` / `unparsedEntityDecl`: any entity declaration, general or parameter, internal
///   or external, stops the parse before libxml2 stores it. With no entity ever declared there
///   is nothing to expand (billion laughs, quadratic blow-up) and nothing to fetch (XXE).
/// - `internalSubset`: a DOCTYPE naming an external DTD is refused unless
///   ``XMLParseOptions/allowsExternalDTDReference``; `externalSubset`, where libxml2's tree
///   builder would load that DTD, does nothing.
/// - `resolveEntity`: never resolves anything.
/// - `reference`: a reference to an entity nobody declared (possible only next to an external
///   DTD) is refused rather than kept as an unresolved node.
/// - `serror`: libxml2's structured errors, per context: the first error stops the parse and is
///   classified into an ``XMLError``; nothing goes to stderr (a converter's errors, which libxml2
///   raises without a context, are routed here by ``PushParser`` for the length of each call).
/// The options (`cxml_harden`) add `XML_PARSE_NONET` and keep `NOENT`, `DTDLOAD`, `DTDATTR`,
/// `HUGE` off as a second line.
enum SecurityCallbacks {
    static func install(in sax: inout xmlSAXHandler, buildsTree: Bool) {
        sax.entityDecl = { context, name, type, publicID, systemID, _ in
            guard let (state, parser) = ParserState.from(context) else { return }
            let isParameter = type == Int32(XML_INTERNAL_PARAMETER_ENTITY.rawValue)
                || type == Int32(XML_EXTERNAL_PARAMETER_ENTITY.rawValue)
            let entity = (isParameter ? "% " : "") + (name.map { String(cString: $0) } ?? "")
            SecurityCallbacks.refuseEntity(state, parser, name: entity, publicID: publicID, systemID: systemID)
        }
        sax.unparsedEntityDecl = { context, name, publicID, systemID, _ in
            guard let (state, parser) = ParserState.from(context) else { return }
            SecurityCallbacks.refuseEntity(state, parser, name: name.map { String(cString: $0) } ?? "", publicID: publicID, systemID: systemID)
        }
        if buildsTree {
            sax.internalSubset = { context, name, externalID, systemID in
                guard let (state, parser) = ParserState.from(context) else { return }
                guard SecurityCallbacks.allowsDocumentType(state, parser, name: name, externalID: externalID, systemID: systemID) else { return }
                xmlSAX2InternalSubset(context, name, externalID, systemID)
            }
        } else {
            sax.internalSubset = { context, name, externalID, systemID in
                guard let (state, parser) = ParserState.from(context) else { return }
                _ = SecurityCallbacks.allowsDocumentType(state, parser, name: name, externalID: externalID, systemID: systemID)
            }
        }
        sax.externalSubset = { _, _, _, _ in }
        sax.resolveEntity = { context, publicID, systemID in
            guard let (state, parser) = ParserState.from(context) else { return nil }
            SecurityCallbacks.refuse(state, parser, XMLError(
                reason: .externalEntityRefused,
                message: "external resources are never loaded: \(SecurityCallbacks.externalID(publicID, systemID))"
            ))
            return nil
        }
        sax.reference = { context, name in
            guard let (state, parser) = ParserState.from(context) else { return }
            let entity = name.map { String(cString: $0) } ?? ""
            SecurityCallbacks.refuse(state, parser, XMLError(
                reason: .externalEntityRefused,
                message: "the entity &\(entity); is not declared, and the external DTD that could declare it is never loaded"
            ))
        }
        sax.serror = { context, error in
            guard let (state, parser) = ParserState.from(context), let error else { return }
            ErrorClassification.record(error.pointee, state: state, parser: parser)
        }
    }

    /// Stops the parse with `error` (the first error recorded wins), at the parser's position.
    static func refuse(_ state: ParserState, _ parser: xmlParserCtxtPtr, _ error: XMLError) {
        var error = error
        if let input = parser.pointee.input {
            error.line = Int(input.pointee.line)
            error.column = Int(input.pointee.col)
        }
        state.record(error)
        xmlStopParser(parser)
    }

    private static func refuseEntity(
        _ state: ParserState, _ parser: xmlParserCtxtPtr, name: String,
        publicID: UnsafePointer<xmlChar>?, systemID: UnsafePointer<xmlChar>?
    ) {
        if publicID != nil || systemID != nil {
            refuse(state, parser, XMLError(
                reason: .externalEntityRefused,
                message: "external entities are refused: <!ENTITY \(name) \(externalID(publicID, systemID))> (nothing was loaded)"
            ))
        } else {
            refuse(state, parser, XMLError(
                reason: .entityDeclarationRefused,
                message: "entity declarations are refused: <!ENTITY \(name) …> (declared entities are never expanded)"
            ))
        }
    }

    private static func allowsDocumentType(
        _ state: ParserState, _ parser: xmlParserCtxtPtr, name: UnsafePointer<xmlChar>?,
        externalID: UnsafePointer<xmlChar>?, systemID: UnsafePointer<xmlChar>?
    ) -> Bool {
        guard externalID != nil || systemID != nil, !state.options.allowsExternalDTDReference else { return true }
        let root = name.map { String(cString: $0) } ?? ""
        refuse(state, parser, XMLError(
            reason: .externalEntityRefused,
            message: "external DTDs are refused: <!DOCTYPE \(root) \(Self.externalID(externalID, systemID))> (nothing was loaded)"
        ))
        return false
    }

    /// `PUBLIC "p" "s"` or `SYSTEM "s"`, as the declaration wrote it.
    private static func externalID(_ publicID: UnsafePointer<xmlChar>?, _ systemID: UnsafePointer<xmlChar>?) -> String {
        let system = systemID.map { "\"\(String(cString: $0))\"" } ?? ""
        if let publicID {
            return "PUBLIC \"\(String(cString: publicID))\"" + (system.isEmpty ? "" : " " + system)
        }
        return "SYSTEM " + system
    }
}
