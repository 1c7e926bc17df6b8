import HTTPTypes

extension HTTPFields {
    /// Adds every field of `defaults` whose name these fields lack; a name already present keeps
    /// its own values, and a default name with several values adds them all.
    mutating func addMissing(_ defaults: HTTPFields) {
        guard !defaults.isEmpty else { return }
        let present = Set(self.map(\.name))
        for field in defaults where !present.contains(field.name) {
            append(field)
        }
    }
}
