import CourierCore

/// The keyed container: each property under its name (converted by the key strategy).
struct NodeKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let context: EncodingContext
    let codingPath: [any CodingKey]

    private func store(_ value: Parameters, forKey key: Key) {
        node.set(.value(value), forKey: context.name(for: key))
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    mutating func encodeNil(forKey key: Key) throws { store(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { store(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { store(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { store(.double(value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { store(context.float(value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { store(.int(value), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { store(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { store(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { store(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { store(try context.integer(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { store(try context.integer(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { store(try context.integer(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { store(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { store(.int(Int(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { store(try context.integer(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { store(try context.integer(value, at: path(key)), forKey: key) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { store(try context.integer(value, at: path(key)), forKey: key) }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        store(try context.box(value, at: path(key)), forKey: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        _ = child.becomeKeyed()
        node.set(.node(child), forKey: context.name(for: key))
        return KeyedEncodingContainer(NodeKeyedContainer<NestedKey>(node: child, context: context, codingPath: path(key)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        _ = child.becomeUnkeyed()
        node.set(.node(child), forKey: context.name(for: key))
        return NodeUnkeyedContainer(node: child, context: context, codingPath: path(key))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(named: "super", pathKey: PathKey.super)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: context.name(for: key), pathKey: key)
    }

    /// An encoder for a child node under `name`, filled by a superclass's `encode(to:)`.
    private func superEncoder(named name: String, pathKey: any CodingKey) -> any Encoder {
        let child = EncodingNode()
        node.set(.node(child), forKey: name)
        return NodeEncoder(node: child, context: context, codingPath: codingPath + [pathKey])
    }
}
