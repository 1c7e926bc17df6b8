import CourierCore

/// Where ``HTTPCache`` keeps its entries: one entry a key (the newest variant), a byte limit, least recently
/// used out first.
protocol CacheStore: Sendable {
    func entry(for key: String) -> CacheEntry?
    func store(_ entry: CacheEntry)
    func remove(_ key: String)
    func removeAll()
    /// The bytes held, as the limit counts them.
    var size: Int { get }
}

/// Entries in memory, least recently used out first once ``maximumBytes`` is passed.
final class MemoryCacheStore: CacheStore {
    private struct State: Sendable {
        var entries: [String: CacheEntry] = [:]
        /// Keys from least to most recently used.
        var order: [String] = []
        var size = 0
    }

    let maximumBytes: Int
    private let state = Locked(State())

    init(maximumBytes: Int) {
        self.maximumBytes = max(0, maximumBytes)
    }

    func entry(for key: String) -> CacheEntry? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            Self.touch(key, in: &state)
            return entry
        }
    }

    func store(_ entry: CacheEntry) {
        guard entry.size <= maximumBytes else { return remove(entry.key) }
        state.withLock { state in
            if let old = state.entries.updateValue(entry, forKey: entry.key) { state.size -= old.size }
            state.size += entry.size
            Self.touch(entry.key, in: &state)
            while state.size > maximumBytes, let oldest = state.order.first {
                state.order.removeFirst()
                if let evicted = state.entries.removeValue(forKey: oldest) { state.size -= evicted.size }
            }
        }
    }

    func remove(_ key: String) {
        state.withLock { state in
            if let removed = state.entries.removeValue(forKey: key) {
                state.size -= removed.size
                state.order.removeAll { $0 == key }
            }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }

    var size: Int { state.withLock { $0.size } }

    private static func touch(_ key: String, in state: inout State) {
        state.order.removeAll { $0 == key }
        state.order.append(key)
    }
}
