import CourierCore

/// The single-value container: one scalar, or one nested value, into the node.
struct NodeSingleValueContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let context: EncodingContext
    let codingPath: [any CodingKey]

    /// Throws when the node already holds something: a single-value container holds one value.
    private func requireEmpty(_ value: Any) throws {
        guard node.kind == .empty else {
            throw context.invalid(
                value, at: codingPath,
                "a single value was encoded into a value already encoded as \(node.kind); a single-value container holds one value"
            )
        }
    }

    private func store(_ value: Parameters) throws {
        try requireEmpty(value)
        _ = node.setSingle(value)
    }

    mutating func encodeNil() throws { try store(.null) }
    mutating func encode(_ value: Bool) throws { try store(.bool(value)) }
    mutating func encode(_ value: String) throws { try store(.string(value)) }
    mutating func encode(_ value: Double) throws { try store(.double(value)) }
    mutating func encode(_ value: Float) throws { try store(context.float(value)) }
    mutating func encode(_ value: Int) throws { try store(.int(value)) }
    mutating func encode(_ value: Int8) throws { try store(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { try store(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { try store(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { try store(context.integer(value, at: codingPath)) }
    mutating func encode(_ value: Int128) throws { try store(context.integer(value, at: codingPath)) }
    mutating func encode(_ value: UInt) throws { try store(context.integer(value, at: codingPath)) }
    mutating func encode(_ value: UInt8) throws { try store(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { try store(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { try store(context.integer(value, at: codingPath)) }
    mutating func encode(_ value: UInt64) throws { try store(context.integer(value, at: codingPath)) }
    mutating func encode(_ value: UInt128) throws { try store(context.integer(value, at: codingPath)) }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        // Checked first, so a value is not encoded only to be refused.
        try requireEmpty(value)
        try store(context.box(value, at: codingPath))
    }
}
