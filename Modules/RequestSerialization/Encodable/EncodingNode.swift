import CourierCore

/// One value being encoded: empty until a container is asked for, then a single value, a keyed
/// or an unkeyed container.
///
/// A class because `Encodable` hands out containers that write into the same place later
/// (`nestedContainer`, `superEncoder`): a child's node is linked in first and read when the
/// whole tree is done. The three stores are separate properties so that appending mutates in
/// place instead of copying a collection out of an enum payload.
final class EncodingNode {
    /// What the node became.
    enum Kind {
        case empty, single, keyed, unkeyed
    }

    /// A finished value or a node that may still be filled.
    enum Slot {
        case value(Parameters)
        case node(EncodingNode)
    }

    private(set) var kind: Kind = .empty
    private var single: Parameters = .null
    private var keyed: [String: Slot] = [:]
    private var unkeyed: [Slot] = []

    /// Makes the node keyed; false when it already is something else.
    func becomeKeyed() -> Bool {
        if kind == .empty { kind = .keyed }
        return kind == .keyed
    }

    /// Makes the node unkeyed; false when it already is something else.
    func becomeUnkeyed() -> Bool {
        if kind == .empty { kind = .unkeyed }
        return kind == .unkeyed
    }

    /// Makes the node the single `value`; false when it already holds anything.
    func setSingle(_ value: Parameters) -> Bool {
        guard kind == .empty else { return false }
        kind = .single
        single = value
        return true
    }

    /// Stores `slot` under `key` (a keyed node); a repeated key keeps the last, as `JSONEncoder`.
    func set(_ slot: Slot, forKey key: String) {
        keyed[key] = slot
    }

    /// Appends `slot` (an unkeyed node).
    func append(_ slot: Slot) {
        unkeyed.append(slot)
    }

    /// How many elements an unkeyed node holds.
    var count: Int { unkeyed.count }

    /// The finished tree. A node nothing was written to is an empty dictionary, as a type whose
    /// `encode(to:)` writes no key is an empty object in JSON.
    var parameters: Parameters {
        switch kind {
        case .empty: return .dictionary([:])
        case .single: return single
        case .keyed: return .dictionary(keyed.mapValues(\.parameters))
        case .unkeyed: return .array(unkeyed.map(\.parameters))
        }
    }
}

extension EncodingNode.Slot {
    /// The finished value.
    var parameters: Parameters {
        switch self {
        case .value(let value): return value
        case .node(let node): return node.parameters
        }
    }
}

/// A coding key for paths: an array index, a dictionary key or `super`.
struct PathKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `superEncoder()` uses.
    static let `super` = PathKey(stringValue: "super")
}
