/// Writes ``XMLNode`` values back as XML text (compact, escaped), for `description`.
enum XMLWriter {
    static func write(_ node: XMLNode, to output: inout String) {
        switch node {
        case .element(let element):
            output += "<" + element.name.qualifiedName
            for namespace in element.namespaces {
                output += " " + (namespace.prefix.map { "xmlns:" + $0 } ?? "xmlns") + "=\""
                output += escaped(namespace.uri, attribute: true) + "\""
            }
            for attribute in element.attributes {
                output += " " + attribute.name.qualifiedName + "=\"" + escaped(attribute.value, attribute: true) + "\""
            }
            guard !element.children.isEmpty else {
                output += "/>"
                return
            }
            output += ">"
            for child in element.children { write(child, to: &output) }
            output += "</" + element.name.qualifiedName + ">"
        case .text(let text):
            output += escaped(text, attribute: false)
        case .cdata(let text):
            // "]]>" cannot appear inside a section: split it across two.
            output += "<![CDATA[" + text.replacing("]]>", with: "]]]]><![CDATA[>") + "]]>"
        case .comment(let text):
            output += "<!--" + text + "-->"
        case .processingInstruction(let target, let data):
            output += "<?" + target + (data.map { " " + $0 } ?? "") + "?>"
        }
    }

    static func escaped(_ text: String, attribute: Bool) -> String {
        guard text.contains(where: { "&<>\"\r\n\t".contains($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where attribute: result += "&quot;"
            case "\n" where attribute: result += "&#10;"
            case "\t" where attribute: result += "&#9;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}
