internal import CLibXML2

/// What one libxml2 parse accumulates between two calls into it: the events not yet handed out,
/// the character data being gathered, and the first error. Reached from libxml2's callbacks
/// through the parser context's `_private` pointer; used only by the thread that is feeding the
/// parser, like the context itself.
final class ParserState {
    /// Character data is handed out in events of at most this many bytes.
    static let characterRunLimit = 64 * 1024

    /// Whether events are gathered (SAX), or libxml2 builds a tree.
    let collectsEvents: Bool
    let options: XMLParseOptions
    /// Events produced since the last ``takeEvents()``.
    private(set) var events: [XMLEvent] = []
    /// The first error; libxml2 continues after some errors, Courier never does.
    private(set) var error: XMLError?
    /// True while the final, terminating call runs: errors there may mean a truncated document.
    var finishing = false
    /// True once a byte other than white space (or a byte-order mark) has been fed.
    var sawContent = false
    /// How many elements are open (event parses; libxml2 counts for trees).
    var depth = 0
    /// The deepest nesting accepted in event parses: the same as libxml2's tree builder without
    /// `XML_PARSE_HUGE` (it refuses a node when more than `xmlParserMaxDepth`, 256, are open
    /// below the document), which libxml2 does not apply to SAX. Without it a stream of start
    /// tags would grow libxml2's name stack without bound.
    static let maximumDepth = 257

    private var characters: [UInt8] = []
    private var charactersAreCDATA = false
    /// A CDATA section began a run that has no bytes yet: an empty section (`<![CDATA[]]>`) is still an event,
    /// `.cdata("")`, as it is a node of the document libxml2 builds.
    private var cdataRunOpen = false
    /// libxml2 interns names in its dictionary, whose strings live as long as the parser and
    /// never move: the same pointer always means the same name, so each one is decoded once
    /// (most of the per-event work otherwise). Only pointers the dictionary owns are cached.
    private var names: [UnsafePointer<xmlChar>: String] = [:]
    /// The parser's dictionary (set once the context exists).
    var dictionary: xmlDictPtr?
    private static let nameCacheLimit = 4096

    init(collectsEvents: Bool, options: XMLParseOptions) {
        self.collectsEvents = collectsEvents
        self.options = options
    }

    /// Keeps `error` unless an earlier one is already kept. Character data gathered before it
    /// becomes an event; nothing after it does.
    func record(_ error: XMLError) {
        guard self.error == nil else { return }
        flushCharacters()
        self.error = error
    }

    /// Hands the gathered events over in `buffer`, and keeps `buffer`'s storage (emptied) for
    /// the next ones, so a long parse reuses two arrays instead of allocating one per call.
    func takeEvents(into buffer: inout [XMLEvent]) {
        buffer.removeAll(keepingCapacity: true)
        swap(&buffer, &events)
    }

    /// The gathered events.
    func takeEvents() -> [XMLEvent] {
        var taken: [XMLEvent] = []
        swap(&taken, &events)
        return taken
    }

    func append(_ event: XMLEvent) {
        guard error == nil else { return }
        flushCharacters()
        events.append(event)
    }

    func appendCharacters(_ bytes: UnsafePointer<xmlChar>, count: Int, cdata: Bool) {
        guard error == nil else { return }
        if cdata != charactersAreCDATA { flushCharacters() }
        charactersAreCDATA = cdata
        if cdata { cdataRunOpen = true }
        var start = 0
        while start < count {
            // Fill the run up to the limit, cutting only before a character's first byte
            // (libxml2 hands over whole UTF-8 characters).
            var end = min(count, start + Self.characterRunLimit - characters.count)
            while end < count, end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            if end == start {
                flushCharacters()
                continue
            }
            characters.append(contentsOf: UnsafeBufferPointer(start: bytes + start, count: end - start))
            start = end
            if end < count || characters.count >= Self.characterRunLimit { flushCharacters() }
        }
    }

    func flushCharacters() {
        defer { cdataRunOpen = false }
        guard !characters.isEmpty || (charactersAreCDATA && cdataRunOpen) else { return }
        let text = String(decoding: characters, as: UTF8.self)
        events.append(charactersAreCDATA ? .cdata(text) : .text(text))
        characters.removeAll(keepingCapacity: true)
    }

    /// The name at `pointer`, decoded once per distinct dictionary entry.
    func name(_ pointer: UnsafePointer<xmlChar>?) -> String? {
        guard let pointer else { return nil }
        if let known = names[pointer] { return known }
        let name = String(cString: pointer)
        if names.count < Self.nameCacheLimit, let dictionary, xmlDictOwns(dictionary, pointer) == 1 {
            names[pointer] = name
        }
        return name
    }
}
