/// One `ITEM` argument of `courier`, split at its first unescaped separator.
///
/// ```text
/// Accept:application/json   header          name==value   query parameter
/// name=value                data field      name:=json    raw JSON value
/// name@path                 file field (multipart, streamed from disk)
/// ```
/// A backslash escapes a separator character (`:`, `=`, `@`), a bracket or a backslash in the
/// name: `a\=b=c` is the field `a=b` with the value `c`. Everything after the separator is the
/// value, taken verbatim.
struct RequestItem: Equatable, Sendable {
    /// What the separator made of the item.
    enum Kind: Equatable, Sendable {
        /// `Name:Value`
        case header
        /// `name==value`
        case query
        /// `name=value`
        case data
        /// `name:=json`
        case rawJSON
        /// `name@path`
        case file
    }

    /// What kind of item.
    var kind: Kind
    /// The name with its escapes still in place (brackets are read later by ``ItemName``).
    var rawName: String
    /// The value, verbatim.
    var value: String
    /// The whole argument, for messages.
    var argument: String

    /// The name with every escape removed: what a header or a flat name uses.
    var name: String { ItemName.unescaped(rawName) }

    /// True when the item puts something in the request body.
    var isBodyItem: Bool { kind == .data || kind == .rawJSON || kind == .file }
}

extension RequestItem {
    /// Splits `argument` at its first unescaped separator, preferring `:=` over `:` and `==` over `=`.
    ///
    /// - Throws: ``CLIError`` when there is no separator or the name is empty.
    static func parse(_ argument: String) throws(CLIError) -> RequestItem {
        let characters = Array(argument)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next: Character? = index + 1 < characters.count ? characters[index + 1] : nil
            let found: (Kind, Int)?
            switch character {
            case "\\":
                index += 2
                continue
            case ":":
                found = next == "=" ? (.rawJSON, 2) : (.header, 1)
            case "=":
                found = next == "=" ? (.query, 2) : (.data, 1)
            case "@":
                found = (.file, 1)
            default:
                found = nil
            }
            if let (kind, length) = found {
                let rawName = String(characters[..<index])
                guard !rawName.isEmpty else {
                    throw CLIError("item \"\(argument)\" has no name before its separator")
                }
                return RequestItem(
                    kind: kind, rawName: rawName,
                    value: String(characters[(index + length)...]), argument: argument
                )
            }
            index += 1
        }
        throw CLIError(
            "\"\(argument)\" is not a request item",
            hint: "items are Name:Value (header), name==value (query), name=value (data), name:=json (raw JSON); escape a literal separator with a backslash"
        )
    }
}
