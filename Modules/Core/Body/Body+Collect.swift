import FoundationEssentials

extension Body {
    /// Reads the whole body into memory, refusing to hold more than `maxBytes`.
    ///
    /// A body whose known length already exceeds the bound fails before reading a byte.
    /// - Throws: ``BodyError/tooLarge(limit:)`` past the bound, or the stream's own error.
    public func collect(upTo maxBytes: Int) async throws -> Data {
        if let whole = try bufferedBytes(upTo: maxBytes) { return whole }
        if case .known(let count) = length, count > maxBytes {
            throw BodyError.tooLarge(limit: maxBytes)
        }
        var collected = Data()
        if case .known(let count) = length, count > 0 { collected.reserveCapacity(Int(count)) }
        for try await chunk in self {
            guard collected.count + chunk.count <= maxBytes else {
                throw BodyError.tooLarge(limit: maxBytes)
            }
            collected.append(contentsOf: chunk)
        }
        return collected
    }

    /// Reads and throws away at most `maxBytes`, so a connection can be reused; returns whether
    /// the body ended within the bound.
    /// The bytes of a buffered body that may be read again, checked against `maxBytes` as `collect` checks
    /// them; nil for any other body, which `collect` reads.
    package func bufferedBytes(upTo maxBytes: Int) throws -> Data? {
        guard let bytes = bufferedBytes, iterationBehavior == .multiple else { return nil }
        if case .known(let count) = length, count > maxBytes { throw BodyError.tooLarge(limit: maxBytes) }
        return bytes
    }

    @discardableResult
    package func drain(upTo maxBytes: Int) async -> Bool {
        var seen = 0
        do {
            for try await chunk in self {
                seen += chunk.count
                if seen > maxBytes { return false }
            }
            return true
        } catch {
            return false
        }
    }
}
