import CourierCore

/// The unkeyed container: elements in order.
struct NodeUnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let context: EncodingContext
    let codingPath: [any CodingKey]

    var count: Int { node.count }

    private func store(_ value: Parameters) { node.append(.value(value)) }

    /// The path of the next element.
    private var nextPath: [any CodingKey] { codingPath + [PathKey(intValue: count)] }

    mutating func encodeNil() throws { store(.null) }
    mutating func encode(_ value: Bool) throws { store(.bool(value)) }
    mutating func encode(_ value: String) throws { store(.string(value)) }
    mutating func encode(_ value: Double) throws { store(.double(value)) }
    mutating func encode(_ value: Float) throws { store(context.float(value)) }
    mutating func encode(_ value: Int) throws { store(.int(value)) }
    mutating func encode(_ value: Int8) throws { store(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { store(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { store(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { store(try context.integer(value, at: nextPath)) }
    mutating func encode(_ value: Int128) throws { store(try context.integer(value, at: nextPath)) }
    mutating func encode(_ value: UInt) throws { store(try context.integer(value, at: nextPath)) }
    mutating func encode(_ value: UInt8) throws { store(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { store(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { store(try context.integer(value, at: nextPath)) }
    mutating func encode(_ value: UInt64) throws { store(try context.integer(value, at: nextPath)) }
    mutating func encode(_ value: UInt128) throws { store(try context.integer(value, at: nextPath)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        store(try context.box(value, at: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = EncodingNode()
        _ = child.becomeKeyed()
        node.append(.node(child))
        return KeyedEncodingContainer(NodeKeyedContainer<NestedKey>(node: child, context: context, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = EncodingNode()
        _ = child.becomeUnkeyed()
        node.append(.node(child))
        return NodeUnkeyedContainer(node: child, context: context, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        let child = EncodingNode()
        node.append(.node(child))
        return NodeEncoder(node: child, context: context, codingPath: path)
    }
}
