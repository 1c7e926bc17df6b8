internal import CLibXML2

/// libxml2's XPath 1.0, run on a document's libxml2 tree (under the document's lock).
enum XPathEvaluation {
    static func evaluate(
        _ expression: String, namespaces: [String: String], in document: xmlDocPtr, elements: [XMLElement]
    ) throws(XMLError) -> XPathValue {
        guard let context = xmlXPathNewContext(document) else {
            throw XMLError(reason: .xpath, message: "libxml2 could not allocate an XPath context")
        }
        defer { xmlXPathFreeContext(context) }
        // A structured handler keeps libxml2 from printing; the error itself is read back from
        // the context's lastError.
        context.pointee.error = { _, _ in }
        // A few XPath errors go to libxml2's generic channel only ("function … not found").
        let silenced = cxml_silence_generic_errors()
        defer { cxml_restore_generic_errors(silenced) }
        context.pointee.opLimit = UInt(XMLDocument.xpathOperationLimit)

        for (prefix, uri) in namespaces.sorted(by: { $0.key < $1.key }) {
            let status = withXMLChars(prefix) { prefix in withXMLChars(uri) { uri in xmlXPathRegisterNs(context, prefix, uri) } }
            guard status == 0 else {
                throw XMLError(reason: .xpath, message: "cannot register the namespace prefix \(prefix) for \(uri)")
            }
        }
        guard let compiled = withXMLChars(expression, { xmlXPathCtxtCompile(context, $0) }) else {
            throw error(in: context, expression: expression)
        }
        defer { xmlXPathFreeCompExpr(compiled) }
        guard let object = xmlXPathCompiledEval(compiled, context) else {
            throw error(in: context, expression: expression)
        }
        defer { xmlXPathFreeObject(object) }

        switch object.pointee.type {
        case XPATH_NODESET, XPATH_XSLT_TREE:
            guard let set = object.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else {
                return .nodes([])
            }
            var nodes: [XPathNode] = []
            nodes.reserveCapacity(Int(set.pointee.nodeNr))
            for index in 0..<Int(set.pointee.nodeNr) {
                if let node = table[index] { nodes.append(convert(node, elements: elements, document: document)) }
            }
            return .nodes(nodes)
        case XPATH_BOOLEAN:
            return .boolean(object.pointee.boolval != 0)
        case XPATH_NUMBER:
            return .number(object.pointee.floatval)
        case XPATH_STRING:
            return .string(TreeConversion.string(object.pointee.stringval) ?? "")
        default:
            throw XMLError(reason: .xpath, message: "the expression evaluated to an unsupported XPath type \(object.pointee.type.rawValue)")
        }
    }

    private static func convert(_ node: xmlNodePtr, elements: [XMLElement], document: xmlDocPtr) -> XPathNode {
        let value = stringValue(node)
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            let element = TreeConversion.element(of: node, in: elements)
            return XPathNode(
                kind: .element, name: element?.name ?? TreeConversion.name(node.pointee.name, node.pointee.ns),
                element: element, stringValue: value
            )
        case XML_ATTRIBUTE_NODE:
            return XPathNode(kind: .attribute, name: TreeConversion.name(node.pointee.name, node.pointee.ns), stringValue: value)
        case XML_TEXT_NODE:
            return XPathNode(kind: .text, stringValue: value)
        case XML_CDATA_SECTION_NODE:
            return XPathNode(kind: .cdata, stringValue: value)
        case XML_COMMENT_NODE:
            return XPathNode(kind: .comment, stringValue: value)
        case XML_PI_NODE:
            return XPathNode(kind: .processingInstruction, name: XMLName(localName: TreeConversion.string(node.pointee.name) ?? ""), stringValue: value)
        case XML_NAMESPACE_DECL:
            // libxml2 hands namespace nodes over as xmlNs records (prefix, href).
            let namespace = UnsafeMutableRawPointer(node).assumingMemoryBound(to: xmlNs.self)
            return XPathNode(
                kind: .namespace, name: XMLName(localName: TreeConversion.string(namespace.pointee.prefix) ?? ""),
                stringValue: TreeConversion.string(namespace.pointee.href) ?? ""
            )
        default:
            let root = xmlDocGetRootElement(document).flatMap { TreeConversion.element(of: $0, in: elements) }
            return XPathNode(kind: .document, element: root, stringValue: value)
        }
    }

    /// XPath's string value of a node (libxml2's `xmlXPathCastNodeToString`).
    private static func stringValue(_ node: xmlNodePtr) -> String {
        guard let raw = xmlXPathCastNodeToString(node) else { return "" }
        defer { cxml_free(raw) }
        return String(cString: UnsafePointer(raw))
    }

    /// The error libxml2 left in the context, in its words (its XPath messages, which the
    /// structured error record does not carry).
    private static func error(in context: xmlXPathContextPtr, expression: String) -> XMLError {
        let last = context.pointee.lastError
        let code = Int(last.code)
        let index = code - Int(XML_XPATH_EXPRESSION_OK.rawValue)
        let message = messages.indices.contains(index) && index > 0 ? messages[index] : "Invalid expression"
        return XMLError(
            reason: .xpath, message: "\(message) in \(expression)", column: last.int1 >= 0 ? Int(last.int1) : nil,
            code: code == 0 ? nil : code
        )
    }

    /// libxml2's messages for `xmlXPathError`, in its order.
    private static let messages = [
        "Ok", "Number encoding", "Unfinished literal", "Start of literal", "Expected $ for variable reference",
        "Undefined variable", "Invalid predicate", "Invalid expression", "Missing closing curly brace",
        "Unregistered function", "Invalid operand", "Invalid type", "Invalid number of arguments",
        "Invalid context size", "Invalid context position", "Memory allocation error", "Syntax error",
        "Resource error", "Sub resource error", "Undefined namespace prefix", "Encoding error",
        "Char out of XML range", "Invalid or incomplete context", "Stack usage error", "Forbidden variable",
        "Operation limit exceeded", "Recursion limit exceeded",
    ]

    /// Runs `body` with `string` as a NUL-terminated `xmlChar` string.
    static func withXMLChars<Result>(_ string: String, _ body: (UnsafePointer<xmlChar>) -> Result) -> Result {
        string.withCString { characters in
            characters.withMemoryRebound(to: xmlChar.self, capacity: string.utf8.count + 1, body)
        }
    }
}
