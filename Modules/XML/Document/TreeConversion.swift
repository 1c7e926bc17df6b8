internal import CLibXML2

/// A libxml2 document owned by Swift, freed with the last reference.
///
/// `@unchecked Sendable`: libxml2 trees are not thread-safe, so the pointer is read in two places
/// only: by ``TreeConversion`` while ``XMLDocument`` builds itself, before it can be shared, and
/// afterwards only inside `withLock` of the `Locked` that holds this object (``XMLDocument``'s
/// `tree`; `Locked` is Core's pthread mutex, which ThreadSanitizer can see).
final class OwnedDocument: @unchecked Sendable {
    let pointer: xmlDocPtr

    init(pointer: xmlDocPtr) {
        self.pointer = pointer
    }

    deinit { xmlFreeDoc(pointer) }
}

/// Copies a libxml2 tree into ``XMLElement`` values.
///
/// Each converted element's number (its index in ``elements``) is written into the libxml2
/// node's `_private` field, the slot libxml2 leaves to applications, so an XPath result node
/// finds its Swift value in O(1). The recursion is as deep as the document, which libxml2 limits
/// to 256 levels (`XML_PARSE_HUGE` is never set).
struct TreeConversion {
    /// Every element, in the order their conversion finished (children before parents).
    private(set) var elements: [XMLElement] = []

    /// The element a libxml2 node was converted to, if it is a converted element.
    static func element(of node: xmlNodePtr, in elements: [XMLElement]) -> XMLElement? {
        guard node.pointee.type == XML_ELEMENT_NODE, let tag = node.pointee._private else { return nil }
        let index = Int(bitPattern: tag) - 1
        return elements.indices.contains(index) ? elements[index] : nil
    }

    /// The nodes from `first` on, through their `next` links.
    mutating func convertSiblings(from first: xmlNodePtr?) -> [XMLNode] {
        var nodes: [XMLNode] = []
        var current = first
        while let node = current {
            if let converted = convert(node) { nodes.append(converted) }
            current = node.pointee.next
        }
        return nodes
    }

    private mutating func convert(_ node: xmlNodePtr) -> XMLNode? {
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            return .element(convertElement(node))
        case XML_TEXT_NODE:
            return .text(Self.string(node.pointee.content) ?? "")
        case XML_CDATA_SECTION_NODE:
            return .cdata(Self.string(node.pointee.content) ?? "")
        case XML_COMMENT_NODE:
            return .comment(Self.string(node.pointee.content) ?? "")
        case XML_PI_NODE:
            return .processingInstruction(target: Self.string(node.pointee.name) ?? "", data: Self.string(node.pointee.content))
        default:
            // The DTD node and anything else that is not content.
            return nil
        }
    }

    private mutating func convertElement(_ node: xmlNodePtr) -> XMLElement {
        var namespaces: [XMLNamespace] = []
        var declaration = node.pointee.nsDef
        while let namespace = declaration {
            namespaces.append(XMLNamespace(prefix: Self.string(namespace.pointee.prefix), uri: Self.string(namespace.pointee.href) ?? ""))
            declaration = namespace.pointee.next
        }
        var attributes: [XMLAttribute] = []
        var property = node.pointee.properties
        while let attribute = property {
            attributes.append(XMLAttribute(
                name: Self.name(attribute.pointee.name, attribute.pointee.ns),
                value: Self.textOfChildren(attribute.pointee.children)
            ))
            property = attribute.pointee.next
        }
        let element = XMLElement(
            name: Self.name(node.pointee.name, node.pointee.ns),
            attributes: attributes,
            namespaces: namespaces,
            children: convertSiblings(from: node.pointee.children)
        )
        elements.append(element)
        node.pointee._private = UnsafeMutableRawPointer(bitPattern: elements.count)
        return element
    }

    static func name(_ name: UnsafePointer<xmlChar>?, _ namespace: xmlNsPtr?) -> XMLName {
        XMLName(
            localName: string(name) ?? "",
            prefix: namespace.flatMap { string($0.pointee.prefix) },
            namespaceURI: namespace.flatMap { string($0.pointee.href) }
        )
    }

    /// The text of an attribute's children (libxml2 keeps an attribute value as text nodes).
    private static func textOfChildren(_ first: xmlNodePtr?) -> String {
        var text = ""
        var current = first
        while let node = current {
            if let content = string(node.pointee.content) { text += content }
            current = node.pointee.next
        }
        return text
    }

    static func string(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    static func string(_ pointer: UnsafeMutablePointer<xmlChar>?) -> String? {
        pointer.map { String(cString: UnsafePointer($0)) }
    }
}
