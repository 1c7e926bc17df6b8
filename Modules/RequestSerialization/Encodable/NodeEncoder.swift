import CourierCore

/// The `Encoder` a value's `encode(to:)` sees: it writes into one ``EncodingNode``.
struct NodeEncoder: Encoder {
    let node: EncodingNode
    let context: EncodingContext
    let codingPath: [any CodingKey]

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        guard node.becomeKeyed() else {
            misuse("a keyed container was asked for a value already encoded as \(node.kind)")
            return KeyedEncodingContainer(NodeKeyedContainer<Key>(node: detachedNode(keyed: true), context: context, codingPath: codingPath))
        }
        return KeyedEncodingContainer(NodeKeyedContainer<Key>(node: node, context: context, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        guard node.becomeUnkeyed() else {
            misuse("an unkeyed container was asked for a value already encoded as \(node.kind)")
            return NodeUnkeyedContainer(node: detachedNode(keyed: false), context: context, codingPath: codingPath)
        }
        return NodeUnkeyedContainer(node: node, context: context, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        NodeSingleValueContainer(node: node, context: context, codingPath: codingPath)
    }

    /// Records a misuse, thrown when the top-level call returns.
    private func misuse(_ description: String) {
        context.record(EncodingError.invalidValue(
            description, EncodingError.Context(codingPath: codingPath, debugDescription: description)
        ))
    }

    /// A node outside the tree, so a misused container can be written to without effect.
    private func detachedNode(keyed: Bool) -> EncodingNode {
        let node = EncodingNode()
        _ = keyed ? node.becomeKeyed() : node.becomeUnkeyed()
        return node
    }
}
