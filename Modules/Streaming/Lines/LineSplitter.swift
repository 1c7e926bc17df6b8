/// Cuts a byte stream into lines, chunk by chunk, holding at most one unfinished line: the part of
/// every line and event stream that touches bytes. Pure, so every cut of a stream can be tested.
///
/// - ``Terminators/lineFeed``: LF or CR LF end a line (NDJSON, logs, most text); a lone CR stays
///   in the line.
/// - ``Terminators/any``: CR LF, LF or a lone CR end a line (the WHATWG event-stream grammar). A CR
///   at the end of a chunk ends its line at once; an LF that starts the next chunk is then its pair.
struct LineSplitter {
    enum Terminators {
        case lineFeed
        case any
    }

    let terminators: Terminators
    /// The longest line, terminator excluded.
    let maximumLength: Int
    /// Lines completed so far.
    private(set) var lineCount = 0
    private var partial: [UInt8] = []
    /// The last line ended with a CR (``Terminators/any``): an LF starting the next chunk belongs to it.
    private var afterCR = false

    init(terminators: Terminators, maximumLength: Int) {
        self.terminators = terminators
        self.maximumLength = max(1, maximumLength)
    }

    /// True when bytes of an unfinished line are held.
    var hasPartialLine: Bool { !partial.isEmpty }

    /// Appends `chunk`, calling `line` with each line it completes (terminator removed).
    mutating func append(_ chunk: ArraySlice<UInt8>, _ line: (ArraySlice<UInt8>) throws(StreamError) -> Void) throws(StreamError) {
        var start = chunk.startIndex
        if afterCR, start < chunk.endIndex {
            afterCR = false
            if chunk[start] == lf { start += 1 }
        }
        while start < chunk.endIndex {
            guard let end = nextTerminator(in: chunk, from: start) else {
                try hold(chunk[start...])
                return
            }
            var piece = chunk[start..<end]
            var next = end + 1
            if chunk[end] == cr {
                if terminators == .any {
                    if next < chunk.endIndex { if chunk[next] == lf { next += 1 } } else { afterCR = true }
                }
            } else if terminators == .lineFeed {
                // LF: a CR before it, in this chunk or held from the last one, is part of the terminator.
                if piece.last == cr { piece = piece.dropLast() } else if piece.isEmpty, partial.last == cr { partial.removeLast() }
            }
            try complete(piece, line)
            start = next
        }
    }

    /// Ends the stream: the unfinished line, if any (a last line without a terminator). A CR held in case an LF
    /// followed stays in that line, so it may not pass the limit by that byte either (found by the `streams` fuzz target).
    mutating func finish() throws(StreamError) -> [UInt8]? {
        afterCR = false
        guard !partial.isEmpty else { return nil }
        guard partial.count <= maximumLength else { throw tooLong() }
        defer { partial = [] }
        lineCount += 1
        return partial
    }

    /// Forgets the unfinished line (a new stream starts).
    mutating func reset() {
        partial = []
        afterCR = false
    }

    private func nextTerminator(in chunk: ArraySlice<UInt8>, from start: Int) -> Int? {
        switch terminators {
        case .lineFeed: return chunk[start...].firstIndex(of: lf)
        case .any: return chunk[start...].firstIndex { $0 == lf || $0 == cr }
        }
    }

    private mutating func hold(_ bytes: ArraySlice<UInt8>) throws(StreamError) {
        // One byte over the limit may be the CR of a CR LF that the next chunk completes.
        let allowance = terminators == .lineFeed && bytes.last == cr ? 1 : 0
        guard partial.count + bytes.count <= maximumLength + allowance else { throw tooLong() }
        partial.append(contentsOf: bytes)
    }

    private mutating func complete(_ piece: ArraySlice<UInt8>, _ line: (ArraySlice<UInt8>) throws(StreamError) -> Void) throws(StreamError) {
        guard partial.count + piece.count <= maximumLength else { throw tooLong() }
        lineCount += 1
        if partial.isEmpty {
            try line(piece)
        } else {
            partial.append(contentsOf: piece)
            let whole = partial
            partial = []
            try line(whole[...])
        }
    }

    private func tooLong() -> StreamError {
        StreamError(.lineTooLong, line: lineCount + 1, limit: maximumLength)
    }
}

private let cr = UInt8(ascii: "\r")
private let lf = UInt8(ascii: "\n")
