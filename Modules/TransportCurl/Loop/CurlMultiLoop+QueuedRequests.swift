#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Easy handles that must outlive what their connection remembers of them. Loop thread only.
///
/// An HTTP/2 request waits in nghttp2's queue, its stream not yet opened, while the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS` allows no other stream on the connection (libcurl 7.88 gives an idle connection
/// whose limit is 0 to a request). When that transfer ends first (a timeout, a cancellation), libcurl resets the
/// stream and means to forget the handle, but nghttp2 keeps the handle's address with the queued request, and passes
/// it to libcurl's stream-close callback once the server raises the limit: libcurl then writes to the handle. A
/// freed handle is a use after free (Valgrind shows libcurl reading the freed handle from `nghttp2_session_send`,
/// and the call driving the session fails "Failed sending data to the peer"); a handle the pool gave to a new
/// transfer fails that transfer ("HTTP/2 stream N was not closed cleanly: STREAM_CLOSED"). libcurl from 8.6 checks
/// the handle first (curl #10936). A handle that is kept, idle, takes the callback harmlessly.
///
/// Nothing libcurl reports tells a queued request from a sent one, so every transfer that was given a connection
/// and ended before its head, not cleanly, keeps its handle out of the pool (``ParkedHandles``) until the connection
/// is done with it: libcurl closed the connection (nghttp2 then deletes its queue without calling back), or a
/// request given the connection later got its answer (nghttp2 opens streams in the order their requests came). An
/// HTTP/1 connection is closed at such an end, and a busy HTTP/2 one answers a later request at once, so a handle
/// is kept for long only where requests do wait: a connection that keeps ``parkedHandleLimit`` of them with no
/// transfer on it is shut down, so that they go with it.
extension CurlMultiLoop {
    /// Handles a connection may keep before the loop shuts it down while it carries no transfer.
    static let parkedHandleLimit = 16

    /// `handle` of `transfer`, which has left the multi handle: pooled or freed, or kept while its connection may
    /// still hold its address (``CurlTransfer/mayLeaveQueuedRequest``). A transfer answered on a connection that
    /// keeps handles frees those kept before it was given the connection.
    func release(_ handle: PooledEasy?, of transfer: CurlTransfer) {
        if !parkedHandles.isEmpty, !transfer.mayLeaveQueuedRequest, let ends = transfer.connectionEnds {
            for answered in parkedHandles.answered(on: ends, grant: transfer.connectionGrant) { answered.cleanup() }
        }
        guard let handle else { return }
        guard transfer.mayLeaveQueuedRequest, let ends = transfer.connectionEnds,
              let socket = connectionSockets.openSockets.first(where: { Self.socket($0, has: ends) }) else {
            recycle(handle, retried: transfer.handleMayHaveRetried)
            return
        }
        let (kept, released) = parkedHandles.park(handle, grants: connectionGrants, on: socket, ends: ends)
        for gone in released { gone.cleanup() }
        guard kept >= Self.parkedHandleLimit, !active.values.contains(where: { $0.connectionEnds == ends }) else { return }
        Self.discard(socket)
        connectionSockets.retire(socket)
    }

    /// libcurl closed `socket` (its close callback, inside a libcurl call): the handles kept for its connection are
    /// freed once that call has returned (``freeUnparkedHandles()``).
    func socketClosed(_ socket: Int32) {
        connectionSockets.closed(socket)
        if !parkedHandles.isEmpty { unparkedHandles.append(contentsOf: parkedHandles.closed(socket)) }
    }

    /// Frees the handles whose connection libcurl has closed. Outside every libcurl call.
    func freeUnparkedHandles() {
        for handle in unparkedHandles { handle.cleanup() }
        unparkedHandles.removeAll()
    }
}
