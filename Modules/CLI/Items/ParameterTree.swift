import CourierCore

/// The data or query items of one command line assembled into a tree, then written as
/// ``CourierCore/Parameters`` for a request serializer.
///
/// ```swift
/// var tree = ParameterTree()
/// try tree.insert(.string("x"), at: ItemName.parse("user[name]", item: "user[name]=x"), item: "user[name]=x")
/// try tree.insert(.string("a"), at: ItemName.parse("tags[]", item: "tags[]=a"), item: "tags[]=a")
/// tree.parameters(repeatedNamesAs: .array)   // ["user": ["name": "x"], "tags": ["a"]]
/// ```
/// A plain name given twice (`a=1 a=2`) keeps both values: JSON gets an array, a query or a
/// form the same name twice (AFNetworking writes a set's elements under one name, sorted).
struct ParameterTree: Sendable {
    /// How a name given more than once is written.
    enum Repetition: Sendable {
        /// As a JSON array, in the order given.
        case array
        /// As a set: the name repeated without brackets, values sorted (query and form).
        case set
    }

    private indirect enum Node: Sendable {
        /// The values given for one name, in order (one, unless the name was repeated).
        case values([Parameters])
        case object([String: Node])
        case array([Node])
    }

    private var root = Node.object([:])

    /// True when no item was inserted.
    var isEmpty: Bool {
        if case .object(let children) = root { return children.isEmpty }
        return false
    }

    /// Puts `value` at the path `name`.
    ///
    /// - Throws: ``CLIError`` when the path crosses a value already given a different shape,
    ///   e.g. `a=1 a[b]=2`.
    mutating func insert(_ value: Parameters, at name: ItemName, item: String) throws(CLIError) {
        try Self.insert(value, path: name.components[...], into: &root, name: name, item: item)
    }

    /// The tree as parameters.
    func parameters(repeatedNamesAs repetition: Repetition) -> Parameters {
        Self.parameters(of: root, repetition: repetition)
    }

    /// Walks `path` down from `node`, making what is missing. Each level takes its node's storage
    /// out before changing it (so copy-on-write never copies a sibling list) and names the walked
    /// path only when it throws: an argument can nest hundreds of levels deep, and eager copies or
    /// messages made every level cost time quadratic in the depth (found by the cli-item fuzz target).
    private static func insert(
        _ value: Parameters,
        path: ArraySlice<ItemName.Component>,
        into node: inout Node,
        name: ItemName,
        item: String
    ) throws(CLIError) {
        let walked = name.components[..<path.startIndex]
        guard let first = path.first else {
            guard case .values(var values) = node else {
                throw CLIError("item \"\(item)\": \(display(walked)) already holds nested fields and cannot also be a value")
            }
            node = .values([])
            values.append(value)
            node = .values(values)
            return
        }
        let rest = path.dropFirst()
        switch first {
        case .key(let key):
            guard case .object(var children) = node else {
                throw CLIError("item \"\(item)\": \(display(walked)) is \(kind(of: node)), so it cannot hold the field \"\(key)\"")
            }
            node = .values([])
            var child = children.removeValue(forKey: key) ?? Self.empty(for: rest.first)
            defer {
                children[key] = child
                node = .object(children)
            }
            try insert(value, path: rest, into: &child, name: name, item: item)
        case .append:
            guard case .array(var elements) = node else {
                throw CLIError("item \"\(item)\": \(display(walked)) is \(kind(of: node)), so '[]' cannot add to it")
            }
            node = .values([])
            var element = Self.empty(for: rest.first)
            defer { node = .array(elements) }
            try insert(value, path: rest, into: &element, name: name, item: item)
            elements.append(element)
        }
    }

    /// A fresh node shaped for what comes next on the path.
    private static func empty(for next: ItemName.Component?) -> Node {
        switch next {
        case .key?: return .object([:])
        case .append?: return .array([])
        case nil: return .values([])
        }
    }

    private static func kind(of node: Node) -> String {
        switch node {
        case .values: return "a value"
        case .object: return "an object"
        case .array: return "an array"
        }
    }

    /// `user[name]` for a walked path, for messages.
    private static func display(_ walked: ArraySlice<ItemName.Component>) -> String {
        guard let first = walked.first else { return "the top level" }
        var text = first.description
        for component in walked.dropFirst() {
            text += "["
            if component != .append { text += component.description }
            text += "]"
        }
        return text
    }

    private static func parameters(of node: Node, repetition: Repetition) -> Parameters {
        switch node {
        case .values(let values):
            if values.count == 1 { return values[0] }
            switch repetition {
            case .array: return .array(values)
            case .set: return .set(Set(values))
            }
        case .object(let children):
            return .dictionary(children.mapValues { parameters(of: $0, repetition: repetition) })
        case .array(let elements):
            return .array(elements.map { parameters(of: $0, repetition: repetition) })
        }
    }
}
