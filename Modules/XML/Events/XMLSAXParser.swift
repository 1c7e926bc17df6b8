import FoundationEssentials

/// A buffered document waiting to be parsed as events: what ``XMLParserResponseSerializer``
/// returns, as AFNetworking's `AFXMLParserResponseSerializer` returned an `NSXMLParser` that had
/// not parsed yet.
///
/// Parsing happens when you ask, as often as you ask (each call replays the document), and
/// problems surface then, as ``XMLError``s:
///
/// ```swift
/// let parser = try await session.get("xml").value(using: XMLParserResponseSerializer())
/// var names: [String] = []
/// try parser.parse { event in
///     if case .startElement(let name, _, _) = event { names.append(name.localName) }
/// }
/// ```
public struct XMLSAXParser: Sendable {
    /// The document's bytes.
    public let data: Data
    /// What to accept.
    public let options: XMLParseOptions
    /// The `charset` of the response's `Content-Type`, if it had one; it wins over the
    /// document's own declaration (RFC 7303).
    public let charset: String?

    /// A parser for `data`.
    public init(data: Data, options: XMLParseOptions = XMLParseOptions(), charset: String? = nil) {
        self.data = data
        self.options = options
        self.charset = charset
    }

    /// Parses the document, calling `handler` with each event in order (in batches between
    /// libxml2 calls, never from inside libxml2).
    /// - Throws: ``XMLError``, or what `handler` throws (which stops the parse).
    public func parse(_ handler: (XMLEvent) throws -> Void) throws {
        let parser = try PushParser(mode: .events, options: options, charset: charset)
        var batch: [XMLEvent] = []
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let piece = UnsafeRawBufferPointer(rebasing: raw[offset..<min(raw.count, offset + PushParser.pieceSize)])
                offset += piece.count
                var failure: XMLError?
                do throws(XMLError) { try parser.feed(piece) } catch { failure = error }
                parser.state.takeEvents(into: &batch)
                for event in batch { try handler(event) }
                if let failure { throw failure }
            }
        }
        var failure: XMLError?
        do throws(XMLError) { try parser.finish() } catch { failure = error }
        parser.state.takeEvents(into: &batch)
        for event in batch { try handler(event) }
        if let failure { throw failure }
    }

    /// Every event of the document, in order.
    /// - Throws: ``XMLError``.
    public func events() throws(XMLError) -> [XMLEvent] {
        let parser = try PushParser(mode: .events, options: options, charset: charset)
        try parser.feed(data)
        try parser.finish()
        return parser.state.takeEvents()
    }
}
