internal import CLibXML2

/// The SAX2 callbacks of an event parse: each turns one libxml2 callback into an ``XMLEvent``
/// kept in the ``ParserState``. They run inside `xmlParseChunk`, so they never call user code:
/// the parser's owner hands the events out after the call returns.
enum EventCallbacks {
    static func install(in sax: inout xmlSAXHandler) {
        sax.startElementNs = { context, localName, prefix, uri, namespaceCount, namespaces, attributeCount, defaultedCount, attributes in
            guard let (state, parser) = ParserState.from(context) else { return }
            state.depth += 1
            guard state.depth <= ParserState.maximumDepth else {
                SecurityCallbacks.refuse(state, parser, XMLError(
                    reason: .tooLarge,
                    message: "Excessive depth in document: 256 use XML_PARSE_HUGE option"
                ))
                return
            }
            let name = XMLName(
                localName: state.name(localName) ?? "", prefix: state.name(prefix), namespaceURI: state.name(uri)
            )
            var declared: [XMLNamespace] = []
            if let namespaces, namespaceCount > 0 {
                declared.reserveCapacity(Int(namespaceCount))
                for index in 0..<Int(namespaceCount) {
                    declared.append(XMLNamespace(
                        prefix: state.name(namespaces[2 * index]), uri: state.name(namespaces[2 * index + 1]) ?? ""
                    ))
                }
            }
            var values: [XMLAttribute] = []
            // The last `defaultedCount` attributes are values the internal subset's <!ATTLIST>
            // declares, which libxml2 hands over whatever the options; the tree builder drops them
            // (no XML_PARSE_DTDATTR), and so do events: a default declared once and repeated on every
            // element would grow the output like an entity.
            let written = Int(attributeCount) - Int(defaultedCount)
            if let attributes, written > 0 {
                values.reserveCapacity(written)
                for index in 0..<written {
                    // Five pointers per attribute: local name, prefix, URI, value start, value end.
                    let base = 5 * index
                    values.append(XMLAttribute(
                        name: XMLName(
                            localName: state.name(attributes[base]) ?? "", prefix: state.name(attributes[base + 1]),
                            namespaceURI: state.name(attributes[base + 2])
                        ),
                        value: EventCallbacks.attributeValue(from: attributes[base + 3], to: attributes[base + 4])
                    ))
                }
            }
            state.append(.startElement(name, attributes: values, namespaces: declared))
        }
        sax.endElementNs = { context, localName, prefix, uri in
            guard let (state, _) = ParserState.from(context) else { return }
            state.depth -= 1
            state.append(.endElement(XMLName(
                localName: state.name(localName) ?? "", prefix: state.name(prefix), namespaceURI: state.name(uri)
            )))
        }
        sax.characters = { context, bytes, count in
            guard let (state, _) = ParserState.from(context), let bytes, count > 0 else { return }
            state.appendCharacters(bytes, count: Int(count), cdata: false)
        }
        // White space libxml2 calls "ignorable" is only so by a DTD's declarations, which
        // Courier does not load: it is text like any other.
        sax.ignorableWhitespace = sax.characters
        // libxml2 reports an empty CDATA section too, with no bytes (both its pull and push parsers).
        sax.cdataBlock = { context, bytes, count in
            guard let (state, _) = ParserState.from(context), let bytes, count >= 0 else { return }
            state.appendCharacters(bytes, count: Int(count), cdata: true)
        }
        sax.comment = { context, value in
            guard let (state, _) = ParserState.from(context) else { return }
            state.append(.comment(value.map { String(cString: $0) } ?? ""))
        }
        // The tree builder splits each name an <!ATTLIST> declares into prefix and local name,
        // and libxml2 fails the document when it is not a namespace name ("xmlns:1p"). Events do
        // the same with the same libxml2 function, so both ways agree (found by the `xml` fuzz
        // target); the declaration itself is not kept, as the tree builder's never reaches a
        // Courier document.
        sax.attributeDecl = { context, _, fullName, _, _, _, tree in
            xmlFreeEnumeration(tree)
            guard let (_, parser) = ParserState.from(context), let fullName else { return }
            var prefix: UnsafeMutablePointer<xmlChar>?
            let localName = xmlSplitQName(parser, fullName, &prefix)
            cxml_free(localName)
            cxml_free(prefix)
        }
        sax.processingInstruction = { context, target, data in
            guard let (state, _) = ParserState.from(context) else { return }
            state.append(.processingInstruction(
                target: target.map { String(cString: $0) } ?? "", data: data.map { String(cString: $0) }
            ))
        }
    }

    /// An attribute value as SAX2 hands it over. Without entity substitution
    /// (`XML_PARSE_NOENT`, which Courier never sets) libxml2 passes an escaped ampersand as the
    /// five characters `&#38;`, for its tree builder to decode; since no entity can be declared,
    /// that is the only reference a value can still hold.
    static func attributeValue(from start: UnsafePointer<xmlChar>?, to end: UnsafePointer<xmlChar>?) -> String {
        guard let start, let end, end > start else { return "" }
        let bytes = UnsafeBufferPointer(start: start, count: end - start)
        guard bytes.contains(UInt8(ascii: "&")) else { return String(decoding: bytes, as: UTF8.self) }
        let reference = Array("&#38;".utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "&"), index + reference.count <= bytes.count,
               bytes[index..<(index + reference.count)].elementsEqual(reference) {
                decoded.append(UInt8(ascii: "&"))
                index += reference.count
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: decoded, as: UTF8.self)
    }
}
