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
        try Self.insert(value, path: name.components[...], into: &root, item: item, walked: [])
    }

    /// The tree as parameters.
    func parameters(repeatedNamesAs repetition: Repetition) -> Parameters {
        Self.parameters(of: root, repetition: repetition)
    }

    private static func insert(
        _ value: Parameters,
        path: ArraySlice<ItemName.Component>,
        into node: inout Node,
        item: String,
        walked: [ItemName.Component]
    ) throws(CLIError) {
        let here = display(walked)
        guard let first = path.first else {
            switch node {
            case .values(let values):
                node = .values(values + [value])
            case .object, .array:
                throw CLIError("item \"\(item)\": \(here) already holds nested fields and cannot also be a value")
            }
            return
        }
        let rest = path.dropFirst()
        switch first {
        case .key(let key):
            guard case .object(var children) = node else {
                throw CLIError("item \"\(item)\": \(here) is \(kind(of: node)), so it cannot hold the field \"\(key)\"")
            }
            var child = children[key] ?? Self.empty(for: rest.first)
            try insert(value, path: rest, into: &child, item: item, walked: walked + [first])
            children[key] = child
            node = .object(children)
        case .append:
            guard case .array(var elements) = node else {
                throw CLIError("item \"\(item)\": \(here) is \(kind(of: node)), so '[]' cannot add to it")
            }
            var element = Self.empty(for: rest.first)
            try insert(value, path: rest, into: &element, item: item, walked: walked + [first])
            elements.append(element)
            node = .array(elements)
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
    private static func display(_ walked: [ItemName.Component]) -> String {
        guard let first = walked.first else { return "the top level" }
        return walked.dropFirst().reduce(first.description) { $0 + "[" + ($1 == .append ? "" : $1.description) + "]" }
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
