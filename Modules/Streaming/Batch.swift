/// The values one chunk completed (its lines, its events), handed out one at a time by an iterator.
struct Batch<Element> {
    private var items: [Element] = []
    private var index = 0

    /// The next value, or `nil` once every value was handed out.
    mutating func next() -> Element? {
        guard index < items.count else { return nil }
        defer { index += 1 }
        return items[index]
    }

    /// Starts handing out `items`.
    mutating func refill(_ items: [Element]) {
        self.items = items
        index = 0
    }
}
