import FoundationEssentials

/// A streaming (SAX) parser you feed yourself: bytes in, ``XMLEvent``s out, in constant memory.
///
/// Use it when the bytes come from somewhere other than a Courier ``Body`` (a file, a socket);
/// for a response, ``XMLStream`` does the feeding.
///
/// ```swift
/// let parser = try XMLEventParser()
/// var events = try parser.feed(Data("<list><item>a</it".utf8))   // [start list, start item]
/// events += try parser.feed(Data("em></list>".utf8))              // [text "a", end item, end list]
/// events += try parser.finish()
/// ```
/// An event is handed out once it is complete, so a chunk may end anywhere, even inside a tag
/// or a multi-byte character. Not `Sendable`: one owner feeds it (libxml2 parser contexts are
/// not thread-safe).
public final class XMLEventParser {
    private let parser: PushParser

    /// A parser; `charset` is the `charset` of the body's `Content-Type`, which wins over the
    /// document's own declaration (RFC 7303).
    public init(options: XMLParseOptions = XMLParseOptions(), charset: String? = nil) throws(XMLError) {
        parser = try PushParser(mode: .events, options: options, charset: charset)
    }

    /// Parses the next bytes and returns the events they completed.
    /// - Throws: ``XMLError`` at the first problem; every later call throws it again.
    public func feed(_ bytes: some Sequence<UInt8>) throws(XMLError) -> [XMLEvent] {
        var failure: XMLError?
        let fed: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(XMLError) { try parser.feed(UnsafeRawBufferPointer(buffer)) } catch { failure = error }
        }
        if fed == nil {
            Array(bytes).withUnsafeBytes { raw in
                do throws(XMLError) { try parser.feed(raw) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return parser.state.takeEvents()
    }

    /// Ends the document and returns its last events.
    /// - Throws: ``XMLError``, e.g. ``XMLError/Reason/truncated`` when an element is still open.
    public func finish() throws(XMLError) -> [XMLEvent] {
        try parser.finish()
        return parser.state.takeEvents()
    }
}
