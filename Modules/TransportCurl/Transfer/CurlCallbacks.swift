internal import CCurl
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The C callbacks libcurl calls on the loop thread. Each recovers its transfer from the user-data
// pointer (unretained: the loop keeps the transfer alive while its handle exists) and does no
// more than store what happened; events and continuations wait for the loop's flush.
//
// The transfer is borrowed for the call (`transfer(_:_:)`), not retained and released: a small response
// makes a dozen header callbacks, and each retain and release is an atomic operation on a cache line that
// the caller's thread also touches.

/// Runs `body` with the transfer behind libcurl's user-data pointer, borrowed: the loop's table of active
/// transfers keeps it alive for as long as libcurl can call back.
@inline(__always)
private func transfer<Result>(_ user: UnsafeMutableRawPointer, _ body: (CurlTransfer) -> Result) -> Result {
    Unmanaged<CurlTransfer>.fromOpaque(user)._withUnsafeGuaranteedRef(body)
}

let curlHeaderCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    buffer, size, count, user in
    guard let buffer, let user else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
    return transfer(user) { $0.onHeaderLine(bytes) } ? size * count : 0
}

let curlWriteCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    buffer, size, count, user in
    guard let user else { return 0 }
    let length = size * count
    guard let buffer, length > 0 else { return 0 }
    return transfer(user) { $0.onBodyBytes(UnsafeRawBufferPointer(start: buffer, count: length)) } ? length : ccurl_writefunc_pause
}

let curlReadCallback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int = {
    buffer, size, count, user in
    guard let buffer, let user else { return ccurl_readfunc_abort }
    switch transfer(user, { $0.onUploadRead(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) }) {
    case nil: return ccurl_readfunc_pause
    case let written? where written < 0: return ccurl_readfunc_abort
    case let written?: return written
    }
}

let curlSeekCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, Int32) -> Int32 = {
    user, offset, origin in
    guard let user, offset == 0, origin == SEEK_SET else { return Int32(ccurl_seekfunc_cantseek) }
    return transfer(user) { $0.onSeekToStart() } ? Int32(ccurl_seekfunc_ok) : Int32(ccurl_seekfunc_cantseek)
}

let curlProgressCallback: @convention(c) (UnsafeMutableRawPointer?, curl_off_t, curl_off_t, curl_off_t, curl_off_t) -> Int32 = {
    user, _, _, _, uploaded in
    guard let user else { return 0 }
    transfer(user) { $0.onProgress(uploaded: Int64(uploaded)) }
    return 0
}

/// CURLOPT_SOCKOPTFUNCTION: a socket for a connection (not yet connected), told to the loop's table.
let curlSocketOpenedCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t, curlsocktype) -> Int32 = {
    user, socket, _ in
    if let user { Unmanaged<CurlMultiLoop>.fromOpaque(user)._withUnsafeGuaranteedRef { $0.connectionSockets.opened(socket) } }
    return Int32(ccurl_sockopt_ok)
}

/// CURLOPT_CLOSESOCKETFUNCTION: libcurl is done with a socket; the loop forgets it (and lets go of the handles kept
/// for its connection), and it is closed here.
let curlCloseSocketCallback: @convention(c) (UnsafeMutableRawPointer?, curl_socket_t) -> Int32 = {
    user, socket in
    if let user { Unmanaged<CurlMultiLoop>.fromOpaque(user)._withUnsafeGuaranteedRef { $0.socketClosed(socket) } }
    return close(socket)
}

/// CURLOPT_PREREQFUNCTION: the request has its connection, new or reused, and nothing of it is sent yet. Aborting
/// fails the transfer with `CURLE_ABORTED_BY_CALLBACK` before a byte of the request goes out.
let curlPrerequestCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<CChar>?, UnsafeMutablePointer<CChar>?, Int32, Int32) -> Int32 = {
    user, remoteAddress, _, remotePort, localPort in
    guard let user else { return Int32(ccurl_prereqfunc_ok) }
    let proceed = transfer(user) { $0.onConnectionReady(remoteAddress: remoteAddress, remotePort: remotePort, localPort: localPort) }
    return Int32(proceed ? ccurl_prereqfunc_ok : ccurl_prereqfunc_abort)
}

/// CURLOPT_DEBUGFUNCTION, installed only when the configuration has a diagnostics handler.
let curlDebugCallback: @convention(c) (UnsafeMutableRawPointer?, curl_infotype, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?) -> Int32 = {
    _, type, data, size, user in
    guard let user, let data else { return 0 }
    transfer(user) { $0.onDiagnostic(type, UnsafeRawBufferPointer(start: data, count: size)) }
    return 0
}
