@testable import CourierStreaming

/// The stream parsers (`LineSplitter`, `EventStreamParser`): bytes a server sends, cut anywhere. For every input
/// the lines or events are the same however the bytes are cut (the same error at the same line, when there is
/// one), equal to what an independent model of the rules reads from the whole stream, and within the limits.
///
/// The model is written from the specifications, not from the parsers: lines split at LF with one CR before it
/// dropped (NDJSON), or at CR LF, LF or CR (WHATWG HTML §9.2.6), then interpreted field by field.
enum StreamsFuzz: FuzzTarget {
    static let name = "streams"

    static func run(_ input: FuzzInput) {
        let eventStream = input.bool()
        let small = input.bool()
        let limit = small ? input.int(in: 1...64) : 1 << 20
        let cuts = (0..<input.int(in: 0...6)).map { _ in input.int(in: 0...4096) }
        let bytes = input.rest()
        let pieces = cut(bytes, at: cuts)
        if eventStream {
            let whole = events([bytes], limit: limit)
            let split = events(pieces, limit: limit)
            precondition(whole == split, "cuts \(cuts) changed \(whole) into \(split)")
            if whole.error == nil {
                let model = EventStreamModel.events(bytes)
                precondition(whole.events == model, "the parser read \(whole.events), the model \(model)")
            }
            for event in whole.events {
                precondition(!event.type.isEmpty, "an event without a type")
                // The limit counts the bytes received; a byte that is not UTF-8 becomes U+FFFD, three bytes long, so
                // the decoded text may be longer in UTF-8 but never has more scalars than bytes arrived.
                precondition(event.data.unicodeScalars.count <= limit, "an event over the limit of \(limit)")
            }
        } else {
            let whole = lines([bytes], limit: limit)
            let split = lines(pieces, limit: limit)
            precondition(whole == split, "cuts \(cuts) changed \(whole) into \(split)")
            if whole.error == nil {
                let model = LineModel.lines(bytes)
                precondition(whole.lines == model, "the splitter read \(whole.lines), the model \(model)")
            }
            precondition(whole.lines.allSatisfy { $0.count <= limit }, "a line over the limit of \(limit)")
        }
    }

    struct Outcome<Value: Equatable>: Equatable {
        var values: [Value] = []
        var error: StreamError.Code?
        var errorLine: Int?
    }

    private static func cut(_ bytes: [UInt8], at cuts: [Int]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var start = 0
        for cut in cuts.map({ min($0, bytes.count) }).sorted() {
            pieces.append(Array(bytes[start..<max(start, cut)]))
            start = max(start, cut)
        }
        pieces.append(Array(bytes[start...]))
        return pieces
    }

    private static func events(_ pieces: [[UInt8]], limit: Int) -> (events: [ServerSentEvent], error: StreamError.Code?, line: Int?) {
        var parser = EventStreamParser(maximumLineLength: limit, maximumEventSize: limit)
        var events: [ServerSentEvent] = []
        do {
            for piece in pieces { try parser.append(piece[...]) { events.append($0) } }
        } catch {
            precondition(error.code == .lineTooLong || error.code == .eventTooLarge, "unexpected \(error)")
            return (events, error.code, error.line)
        }
        return (events, nil, nil)
    }

    private static func lines(_ pieces: [[UInt8]], limit: Int) -> (lines: [[UInt8]], error: StreamError.Code?, line: Int?) {
        var splitter = LineSplitter(terminators: .lineFeed, maximumLength: limit)
        var lines: [[UInt8]] = []
        do {
            for piece in pieces { try splitter.append(piece[...]) { lines.append(Array($0)) } }
            if let last = try splitter.finish() { lines.append(last) }
        } catch {
            precondition(error.code == .lineTooLong, "unexpected \(error)")
            return (lines, error.code, error.line)
        }
        return (lines, nil, nil)
    }
}

/// Lines as NDJSON readers take them, from the whole stream at once.
enum LineModel {
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] {
        var pieces = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        // What follows the last LF is a line only when it holds something, and keeps any CR it ends with.
        let last = pieces.removeLast()
        var lines = pieces.map { $0.last == 0x0D ? Array($0.dropLast()) : Array($0) }
        if !last.isEmpty { lines.append(Array(last)) }
        return lines
    }
}

/// HTML's event-stream interpretation, read straight from the specification over the whole stream.
enum EventStreamModel {
    static func events(_ bytes: [UInt8]) -> [ServerSentEvent] {
        var bytes = bytes[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        // Split into lines: CR LF, LF or CR each end one; what follows the last terminator is not a line.
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D {
                lines.append(bytes[start..<index])
                if byte == 0x0D, index + 1 < bytes.endIndex, bytes[index + 1] == 0x0A { index += 1 }
                start = index + 1
            }
            index += 1
        }
        var events: [ServerSentEvent] = []
        var data = ""
        var type = ""
        var idBuffer = ""
        var lastID = ""
        for line in lines {
            let text = String(decoding: line, as: UTF8.self)
            if text.isEmpty {
                lastID = idBuffer
                if !data.isEmpty {
                    events.append(ServerSentEvent(type: type.isEmpty ? "message" : type, data: String(data.dropLast()), lastEventID: lastID))
                }
                data = ""
                type = ""
                continue
            }
            if line.first == 0x3A { continue }
            var field = line[...]
            var value: ArraySlice<UInt8> = []
            if let colon = line.firstIndex(of: 0x3A) {
                field = line[..<colon]
                value = line[(colon + 1)...]
                if value.first == 0x20 { value = value.dropFirst() }
            }
            switch String(decoding: field, as: UTF8.self) {
            case "event": type = String(decoding: value, as: UTF8.self)
            case "data": data += String(decoding: value, as: UTF8.self) + "\n"
            case "id": if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
            default: break
            }
        }
        return events
    }
}
