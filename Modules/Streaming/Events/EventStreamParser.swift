/// The WHATWG event-stream interpretation (HTML §9.2.6) as a pure value: bytes in, events out.
///
/// Lines end with CR LF, LF or CR; one leading byte-order mark is dropped; `:` starts a comment;
/// a field's value loses one leading space; `data` lines join with LF; a blank line dispatches the
/// event (none when no data was given); `id` sets the last event ID unless it holds NUL; `retry`
/// with ASCII digits only sets the reconnection time; other fields are ignored; an unfinished event at
/// the end of a stream is dropped. Text is decoded as UTF-8 with replacement, as browsers do.
struct EventStreamParser {
    private var splitter: LineSplitter
    /// Bytes of a possible byte-order mark at the start of a stream.
    private var head: [UInt8] = []
    private var atStreamStart = true
    private var eventType: [UInt8] = []
    private var data: [UInt8] = []
    private var hasData = false
    /// The `id` buffer: what the next dispatched event will carry.
    private var idBuffer = ""
    /// The event source's last event ID string, set at each blank line.
    private(set) var lastEventID = ""
    /// The last valid `retry` field.
    private(set) var reconnectionTime: Duration?
    /// The most data bytes one event may hold.
    let maximumEventSize: Int

    init(maximumLineLength: Int, maximumEventSize: Int) {
        splitter = LineSplitter(terminators: .any, maximumLength: maximumLineLength)
        self.maximumEventSize = max(1, maximumEventSize)
    }

    /// Appends `chunk`, calling `dispatch` with each event it completes.
    mutating func append(_ chunk: ArraySlice<UInt8>, _ dispatch: (ServerSentEvent) -> Void) throws(StreamError) {
        var chunk = chunk
        if atStreamStart {
            // Hold up to three bytes until it is known whether they are a byte-order mark.
            let needed = 3 - head.count
            head.append(contentsOf: chunk.prefix(needed))
            chunk = chunk.dropFirst(needed)
            if head.count < 3, head.elementsEqual(bom.prefix(head.count)) { return }
            atStreamStart = false
            let start = head == bom ? [] : head
            head = []
            if !start.isEmpty { try feed(start[...], dispatch) }
        }
        try feed(chunk, dispatch)
    }

    /// A new connection's stream begins: the unfinished line and event of the last one are dropped,
    /// the last event ID and reconnection time kept.
    mutating func startStream() {
        splitter.reset()
        head = []
        atStreamStart = true
        eventType = []
        data = []
        hasData = false
        idBuffer = lastEventID
    }

    private mutating func feed(_ bytes: ArraySlice<UInt8>, _ dispatch: (ServerSentEvent) -> Void) throws(StreamError) {
        // The splitter is moved out while it calls back into `process`, which changes the rest of `self`.
        var splitter = self.splitter
        defer { self.splitter = splitter }
        var number = splitter.lineCount
        try splitter.append(bytes) { (line: ArraySlice<UInt8>) throws(StreamError) in
            number += 1
            try process(line, lineNumber: number, dispatch)
        }
    }

    private mutating func process(_ line: ArraySlice<UInt8>, lineNumber: Int, _ dispatch: (ServerSentEvent) -> Void) throws(StreamError) {
        if line.isEmpty { return dispatchEvent(dispatch) }
        if line.first == colon { return }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let separator = line.firstIndex(of: colon) {
            name = line[..<separator]
            value = line[(separator + 1)...]
            if value.first == space { value = value.dropFirst() }
        } else {
            name = line
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "event":
            eventType = Array(value)
        case "data":
            guard data.count + value.count + 1 <= maximumEventSize + 1 else {
                throw StreamError(.eventTooLarge, line: lineNumber, limit: maximumEventSize)
            }
            data.append(contentsOf: value)
            data.append(lf)
            hasData = true
        case "id":
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= zero && $0 <= nine }) {
                // Beyond 18 digits a value would overflow; a day is as long as any server means.
                let milliseconds = value.count > 18 ? Int.max : Int(String(decoding: value, as: UTF8.self)) ?? Int.max
                reconnectionTime = .milliseconds(min(milliseconds, 86_400_000))
            }
        default:
            break
        }
    }

    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent) -> Void) {
        lastEventID = idBuffer
        defer {
            eventType = []
            data = []
            hasData = false
        }
        guard hasData else { return }
        data.removeLast()   // the LF after the last data line
        let type = eventType.isEmpty ? "message" : String(decoding: eventType, as: UTF8.self)
        dispatch(ServerSentEvent(type: type, data: String(decoding: data, as: UTF8.self), lastEventID: lastEventID))
    }
}

private let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
private let colon = UInt8(ascii: ":")
private let space = UInt8(ascii: " ")
private let lf = UInt8(ascii: "\n")
private let zero = UInt8(ascii: "0")
private let nine = UInt8(ascii: "9")
