import FoundationEssentials
internal import CLibXML2

/// Re-indents an XML document, as `xmllint --format` does: libxml2 parses it (with the same
/// safety rules as every CourierXML parse), drops the white space between elements, and writes
/// it back with two-space indentation, in UTF-8.
///
/// ```swift
/// let pretty = try XMLFormatter.format(Data("<a><b>text</b><c/></a>".utf8))
/// // <?xml version="1.0" encoding="UTF-8"?>
/// // <a>
/// //   <b>text</b>
/// //   <c/>
/// // </a>
/// ```
/// Elements that mix text and elements keep their content as it is, so no text changes.
public enum XMLFormatter {
    /// The indented document, ending with a newline.
    /// - Throws: ``XMLError`` when `data` is not a document CourierXML accepts.
    public static func format(_ data: Data, options: XMLParseOptions = XMLParseOptions(), charset: String? = nil) throws(XMLError) -> String {
        let parser = try PushParser(mode: .tree(keepsBlankText: false), options: options, charset: charset)
        try parser.feed(data)
        try parser.finish()
        guard let pointer = parser.takeDocument() else { throw XMLError(reason: .empty, message: "Document is empty") }
        let document = OwnedDocument(pointer: pointer)
        var output: UnsafeMutablePointer<xmlChar>?
        var size: Int32 = 0
        cxml_dump_formatted(document.pointer, &output, &size)
        guard let output else { throw XMLError(reason: .tooLarge, message: "libxml2 could not write the document") }
        defer { cxml_free(output) }
        return String(decoding: UnsafeBufferPointer(start: output, count: Int(size)), as: UTF8.self)
    }
}
