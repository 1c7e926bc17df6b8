/// A data or query item's name read as a path: `user[name]` is `user` → `name`, `tags[]` is
/// `tags` → (append).
///
/// The grammar is `key ( "[" key "]" | "[]" )*`: a leading key, then any number of bracketed
/// keys or `[]`. A backslash makes the next character literal, so `a\[1\]` is the flat name
/// `a[1]`. A bracketed key is always a dictionary key (`a[0]` is the key `"0"`): the request
/// serializers decide how a tree is written, and AFNetworking's query rules have no indices.
struct ItemName: Equatable, Sendable {
    /// One step of the path.
    enum Component: Equatable, Sendable, CustomStringConvertible {
        /// A dictionary key.
        case key(String)
        /// `[]`: a new element at the end of an array.
        case append

        var description: String {
            switch self {
            case .key(let key): return key
            case .append: return "[]"
            }
        }
    }

    /// The path, never empty; the first component is always a key.
    var components: [Component]

    /// True for a plain name without brackets.
    var isFlat: Bool { components.count == 1 }

    /// The deepest path a name may spell, as deep as the JSON values `name:=json` accepts
    /// (``RawJSONValue/maximumDepth``): every level is a recursion when the tree is built and
    /// written, and a command line can hold a name 64,000 levels deep.
    static let maximumDepth = RawJSONValue.maximumDepth

    /// Reads `rawName` (escapes still in place).
    ///
    /// - Throws: ``CLIError`` for an unclosed or stray bracket, an empty leading key, or a path
    ///   deeper than ``maximumDepth``.
    static func parse(_ rawName: String, item: String) throws(CLIError) -> ItemName {
        let characters = Array(rawName)
        var components: [Component] = []
        var current = ""
        var index = 0
        var inBracket = false
        var afterClosingBracket = false

        func fail(_ problem: String) -> CLIError {
            CLIError(
                "item \"\(item)\": \(problem)",
                hint: "nest names as user[name] or tags[]; escape a literal bracket with a backslash (\\[)"
            )
        }

        while index < characters.count {
            let character = characters[index]
            if character == "\\", index + 1 < characters.count {
                guard !afterClosingBracket else { throw fail("text after ']' must start a new '['") }
                current.append(characters[index + 1])
                index += 2
                continue
            }
            switch character {
            case "[" where !inBracket:
                if components.isEmpty {
                    guard !current.isEmpty else { throw fail("the name must start with a key before '['") }
                    components.append(.key(current))
                }
                current = ""
                inBracket = true
                afterClosingBracket = false
            case "]" where inBracket:
                guard components.count < Self.maximumDepth else {
                    throw fail("more than \(Self.maximumDepth) levels of nesting")
                }
                components.append(current.isEmpty ? .append : .key(current))
                current = ""
                inBracket = false
                afterClosingBracket = true
            case "[":
                throw fail("'[' inside brackets")
            case "]":
                throw fail("']' without a matching '['")
            default:
                guard !afterClosingBracket else { throw fail("text after ']' must start a new '['") }
                current.append(character)
            }
            index += 1
        }
        if inBracket { throw fail("unclosed '['") }
        if components.isEmpty {
            guard !current.isEmpty else { throw fail("empty name") }
            components.append(.key(current))
        }
        return ItemName(components: components)
    }

    /// `rawName` with each backslash escape replaced by the character it escapes.
    static func unescaped(_ rawName: String) -> String {
        var output = ""
        var escaping = false
        for character in rawName {
            if escaping {
                output.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                output.append(character)
            }
        }
        if escaping { output.append("\\") }
        return output
    }
}
