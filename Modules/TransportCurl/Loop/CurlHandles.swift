internal import CCurl

/// An easy handle: one transfer's libcurl state. Used only on the loop thread.
struct CurlEasy {
    let raw: UnsafeMutableRawPointer

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> CURLcode { ccurl_easy_setopt_long(raw, option, value) }
    @discardableResult
    func set(_ option: CURLoption, offset value: Int64) -> CURLcode { ccurl_easy_setopt_off(raw, option, curl_off_t(value)) }
    /// libcurl copies strings passed this way (since 7.17), so `value` may be temporary.
    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        value.withCString { ccurl_easy_setopt_string(raw, option, $0) }
    }
    @discardableResult
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) -> CURLcode {
        ccurl_easy_setopt_pointer(raw, option, value)
    }

    func info(_ info: CURLINFO) -> Int? {
        var value = 0
        return ccurl_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : nil
    }
    func info(offset info: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        return ccurl_easy_getinfo_off(raw, info, &value) == CURLE_OK ? Int64(value) : nil
    }
    /// A string of libcurl's, as libcurl keeps it (valid until the handle's next transfer or cleanup).
    func info(cString info: CURLINFO) -> UnsafePointer<CChar>? {
        var value: UnsafeMutablePointer<CChar>? = nil
        guard ccurl_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return UnsafePointer(value)
    }

    func info(string info: CURLINFO) -> String? {
        var value: UnsafeMutablePointer<CChar>? = nil
        guard ccurl_easy_getinfo_string(raw, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    func cleanup() { curl_easy_cleanup(raw) }
}

/// An easy handle of the loop's pool with the buffer libcurl writes its error messages into, and the counts its sockets
/// are opened with (``SocketOpenings``). Both live as long as the handle (set once), so a request allocates none;
/// libcurl empties the buffer before each transfer, and a transfer clears both when it takes the handle.
struct PooledEasy {
    let easy: CurlEasy
    let errorBuffer: UnsafeMutablePointer<CChar>
    let socketOpenings: SocketOpenings

    /// A new handle with the transport's fixed options, or nil when libcurl cannot make one. `loop` is the
    /// ``CurlMultiLoop`` the handle serves, unretained: it outlives its handles and their connections.
    static func make(options: CurlTransport.Configuration, loop: UnsafeMutableRawPointer) -> PooledEasy? {
        guard let easy = CurlEasy() else { return nil }
        let size = Int(ccurl_error_size) + 1
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        let socketOpenings = SocketOpenings()
        CurlOptions.configureHandle(easy, options: options, loop: loop)
        easy.set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
        ccurl_easy_setopt_open_socket(easy.raw, socketOpenings.counts)
        return PooledEasy(easy: easy, errorBuffer: errorBuffer, socketOpenings: socketOpenings)
    }

    /// Frees the handle, then its buffer and counts (in that order: curl may write to them until cleanup).
    func cleanup() {
        easy.cleanup()
        errorBuffer.deallocate()
        socketOpenings.deallocate()
    }
}

/// What a handle's `socket(2)` calls did during its transfer (`ccurl_open_socket` counts them): libcurl reports a
/// connection that could not open a socket as "Couldn't connect to server", as for a server that refused, with no
/// errno. Two ints of the handle's, written by the function on the loop thread, inside libcurl.
struct SocketOpenings {
    /// The errno of the first `socket` call that failed, then how many opened.
    let counts: UnsafeMutablePointer<Int32>

    init() {
        counts = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        counts.initialize(repeating: 0, count: 2)
    }

    /// For a new transfer.
    func reset() {
        counts[0] = 0
        counts[1] = 0
    }

    /// Why no socket could be opened, when none could: the first failure's errno; 0 when one opened or none was tried.
    var failure: Int32 { counts[1] == 0 ? counts[0] : 0 }

    func deallocate() { counts.deallocate() }
}

/// A `curl_slist` of header lines, freed by its owner; it may end with a shared line it does not own
/// (``SharedHeaderLine``), which it unlinks before it frees its own.
struct CurlHeaderList {
    private(set) var raw: UnsafeMutablePointer<curl_slist>? = nil
    /// The last line this list owns: appending links after it, in constant time. Whatever follows it (or `raw`,
    /// when the list owns no line) is the shared ending.
    private var tail: UnsafeMutablePointer<curl_slist>? = nil

    /// Adds a line, copied by libcurl. A line libcurl cannot allocate is left out, as `curl_slist_append` does.
    mutating func append(_ line: String) {
        precondition(tail.map { $0.pointee.next == nil } ?? (raw == nil), "a header list's lines all come before its shared ending")
        guard let node = line.withCString({ curl_slist_append(nil, $0) }) else { return }
        if let tail { tail.pointee.next = node } else { raw = node }
        tail = node
    }

    /// Ends the list with `shared`, which outlives it and stays unchanged: nothing may be appended after it.
    mutating func end(with shared: SharedHeaderLine) {
        if let tail { tail.pointee.next = shared.node } else { raw = shared.node }
    }

    mutating func free() {
        // Cut off the shared ending, if there is one: the list's own lines end at `tail`.
        if let tail { tail.pointee.next = nil } else { raw = nil }
        curl_slist_free_all(raw)
        raw = nil
        tail = nil
    }
}

/// One header line, made once for the process, that many transfers' header lists end with, so a line every
/// request sends costs no allocation per request (`Accept-Encoding`).
///
/// `@unchecked Sendable`: the node is written only while it is made (in a static initializer, which Swift
/// runs once); after that libcurl only reads it, and each list writes only the `next` of its own last node.
/// It is never freed: it lives as long as the process, reachable from the static that holds it.
struct SharedHeaderLine: @unchecked Sendable {
    let node: UnsafeMutablePointer<curl_slist>

    /// `nil` when libcurl cannot allocate it; the caller then adds the line to its own list.
    init?(_ line: String) {
        guard let node = line.withCString({ curl_slist_append(nil, $0) }) else { return nil }
        self.node = node
    }
}
