internal import CCurl

// The C callbacks libcurl calls on the loop thread. Each recovers its transfer from the user-data
// pointer (unretained: the loop keeps the transfer alive while its handle exists) and does no
// more than store what happened; events and continuations wait for the loop's flush.

let curlHeaderCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    buffer, size, count, user in
    guard let buffer, let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
    return transfer.onHeaderLine(bytes) ? size * count : 0
}

let curlWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    buffer, size, count, user in
    guard let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    let length = size * count
    guard let buffer, length > 0 else { return 0 }
    return transfer.onBodyBytes(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : ccurl_writefunc_pause
}

let curlReadCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    buffer, size, count, user in
    guard let buffer, let user else { return ccurl_readfunc_abort }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    switch transfer.onUploadRead(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) {
    case nil: return ccurl_readfunc_pause
    case let written? where written < 0: return ccurl_readfunc_abort
    case let written?: return written
    }
}

let curlSeekCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, Int32) -> Int32 = {
    user, offset, origin in
    guard let user, offset == 0, origin == SEEK_SET else { return Int32(ccurl_seekfunc_cantseek) }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.onSeekToStart() ? Int32(ccurl_seekfunc_ok) : Int32(ccurl_seekfunc_cantseek)
}

let curlProgressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
    user, _, _, _, uploaded in
    guard let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    transfer.onProgress(uploaded: Int64(uploaded))
    return 0
}

/// CURLOPT_DEBUGFUNCTION, installed only when the configuration has a diagnostics handler.
let curlDebugCallback: @convention(c) (UnsafeMutableRawPointer?, curl_infotype, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32 = {
    _, type, data, size, user in
    guard let user, let data else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    transfer.onDiagnostic(type, UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
