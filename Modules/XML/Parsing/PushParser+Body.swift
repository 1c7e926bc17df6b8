import CourierCore
import FoundationEssentials

extension PushParser {
    /// Feeds a whole buffer.
    func feed(_ data: Data) throws(XMLError) {
        var failure: XMLError?
        data.withUnsafeBytes { raw in
            do throws(XMLError) { try feed(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Feeds a body as it arrives, refusing more than `maximumBodySize` bytes (`nil`: no bound).
    /// Each piece's events (none for a tree) are handed over as soon as libxml2 returns, at most
    /// ``pieceSize`` bytes' worth at a time, so memory stays bounded whatever the document's
    /// size.
    func feed(
        _ body: Body, maximumBodySize: Int?, onEvents: ([XMLEvent]) throws -> Void
    ) async throws {
        if let maximumBodySize, case .known(let length) = body.length, length > maximumBodySize {
            throw XMLError.tooLarge(limit: maximumBodySize)
        }
        var received = 0
        for try await chunk in body {
            received += chunk.count
            if let maximumBodySize, received > maximumBodySize { throw XMLError.tooLarge(limit: maximumBodySize) }
            try chunk.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let piece = UnsafeRawBufferPointer(rebasing: raw[offset..<min(raw.count, offset + Self.pieceSize)])
                    offset += piece.count
                    do {
                        try feed(piece)
                    } catch {
                        // The events before the error still belong to the caller.
                        try onEvents(state.takeEvents())
                        throw error
                    }
                    try onEvents(state.takeEvents())
                }
            }
        }
    }
}
