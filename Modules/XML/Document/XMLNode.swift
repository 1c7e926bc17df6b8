/// One child of an element (or a top-level node of a document), in document order.
///
/// Adjacent text is one node; CDATA sections stay apart from text so a document reads back as it
/// was written. Entity and character references are already replaced.
public enum XMLNode: Sendable, Hashable, CustomStringConvertible {
    /// A child element.
    case element(XMLElement)
    /// Character data outside CDATA sections, white space included.
    case text(String)
    /// The content of a CDATA section.
    case cdata(String)
    /// A comment's content.
    case comment(String)
    /// A processing instruction.
    case processingInstruction(target: String, data: String?)

    /// The element, when this node is one.
    public var element: XMLElement? {
        if case .element(let element) = self { return element }
        return nil
    }

    /// The text this node contributes to its parent's ``XMLElement/text``: an element's text,
    /// the characters of text and CDATA; empty for comments and processing instructions.
    public var text: String {
        switch self {
        case .element(let element): return element.text
        case .text(let text), .cdata(let text): return text
        case .comment, .processingInstruction: return ""
        }
    }

    /// The node as XML (escaped; elements serialized with their content).
    public var description: String {
        var output = ""
        XMLWriter.write(self, to: &output)
        return output
    }
}
