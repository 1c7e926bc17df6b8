import Glibc

/// Whether the server ended a TLS connection with its `close_notify` alert: what tells a whole body that ends with
/// its connection from one cut short.
///
/// Why: a response framed by neither `Content-Length` nor chunked coding ends when its connection ends, and the
/// TCP FIN or RST that ends it is not authenticated: anyone on the path can end the connection early, and the client
/// takes what came for the whole body. Only TLS's `close_notify`, inside the encrypted stream, shows that the server
/// ended it, so RFC 9112 section 9.8 takes such a response as complete only after one. libcurl 7.88 takes a bare end
/// for the body's end (for old servers that never sent the alert), curl does the same, and nothing libcurl reports
/// tells the two apart. Nor does the connection's state: OpenSSL records a bare end as a received shutdown when
/// `SSL_OP_IGNORE_UNEXPECTED_EOF` is set, and libcurl's close clears the record (`SSL_set_connect_state`) before
/// it frees the connection. Only the alert itself, seen as it is read, tells.
///
/// How: for such a response the transfer takes its connection's OpenSSL `SSL` (`CURLINFO_TLS_SSL_PTR`) in the header
/// callback, before libcurl reads the body, and ``watch(_:)`` installs an info callback on it, with the watch as the
/// connection's ex-data (released when OpenSSL frees the connection). OpenSSL calls the callback for every alert it
/// reads, so by the transfer's end ``received`` says whether `close_notify` came. The functions are found at run
/// time in the libssl libcurl loaded, as ``OpenSSLRuntime`` finds its own, so CourierCurl links no OpenSSL.
///
/// Thread: every call (the header callback, the info callback inside libcurl's reads, the release inside libcurl's
/// close) happens on the transport's loop thread.
final class CloseNotifyWatch {
    /// Whether the server's `close_notify` alert has been read. Loop thread only.
    private(set) var received = false

    /// Watches the OpenSSL connection `ssl` from now on; nil when this OpenSSL lacks a function the watch needs.
    static func watch(_ ssl: UnsafeMutableRawPointer) -> CloseNotifyWatch? {
        guard let functions = Functions.shared else { return nil }
        let connection = OpaquePointer(ssl)
        let watch = CloseNotifyWatch()
        // A connection carries one watch. One left by an earlier response (a body ending with the connection is its
        // last, so there is none in practice) is let go once the new one holds its place, as OpenSSL would let it go
        // at the end; if the place cannot be taken, the old one keeps it.
        let earlier = functions.getExData(connection, functions.index)
        let retained = Unmanaged.passRetained(watch).toOpaque()
        guard functions.setExData(connection, functions.index, retained) == 1 else {
            release(retained)
            return nil
        }
        release(earlier)
        functions.setInfoCallback(connection) { connection, where_, value in
            CloseNotifyWatch.alertRead(connection, where_, value)
        }
        return watch
    }

    /// `SSL_CB_READ | SSL_CB_ALERT`: an alert read from the peer.
    private static let alertReadEvent: Int32 = 0x4004
    /// The `close_notify` alert's description (RFC 8446 section 6.1), the low byte of the callback's value.
    private static let closeNotify: Int32 = 0

    /// OpenSSL's info callback, for every state change and alert of the connection.
    private static func alertRead(_ connection: OpaquePointer?, _ where_: Int32, _ value: Int32) {
        guard where_ & alertReadEvent == alertReadEvent, value & 0xFF == closeNotify,
              let functions = Functions.shared, let pointer = functions.getExData(connection, functions.index)
        else { return }
        Unmanaged<CloseNotifyWatch>.fromOpaque(pointer).takeUnretainedValue().received = true
    }

    /// Balances the retain of ``watch(_:)``.
    private static func release(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return }
        Unmanaged<CloseNotifyWatch>.fromOpaque(pointer).release()
    }

    /// `@unchecked Sendable`: immutable after the static initializer (which Swift runs once); C function pointers
    /// capture nothing.
    private struct Functions: @unchecked Sendable {
        typealias InfoCallback = @convention(c) (OpaquePointer?, Int32, Int32) -> Void

        /// `SSL_set_info_callback(SSL *, void (*)(const SSL *, int, int))`
        let setInfoCallback: @convention(c) (OpaquePointer?, InfoCallback?) -> Void
        /// `SSL_get_ex_data(const SSL *, int) -> void *`
        let getExData: @convention(c) (OpaquePointer?, Int32) -> UnsafeMutableRawPointer?
        /// `SSL_set_ex_data(SSL *, int, void *) -> int`
        let setExData: @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Int32
        /// The `SSL` ex-data index that owns a retained watch (released with the connection).
        let index: Int32

        static let shared = lookUp()

        private static func lookUp() -> Functions? {
            guard let (ssl, crypto) = OpenSSLRuntime.loadedLibraries(),
                  let setInfoCallback = OpenSSLRuntime.symbol(
                    ssl, "SSL_set_info_callback", as: (@convention(c) (OpaquePointer?, InfoCallback?) -> Void).self),
                  let getExData = OpenSSLRuntime.symbol(
                    ssl, "SSL_get_ex_data", as: (@convention(c) (OpaquePointer?, Int32) -> UnsafeMutableRawPointer?).self),
                  let setExData = OpenSSLRuntime.symbol(
                    ssl, "SSL_set_ex_data",
                    as: (@convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Int32).self),
                  let newExIndex = OpenSSLRuntime.symbol(
                    crypto, "CRYPTO_get_ex_new_index",
                    as: (@convention(c) (Int32, Int, UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?,
                                         OpenSSLRuntime.ExFree?) -> Int32).self)
            else { return nil }
            // CRYPTO_EX_INDEX_SSL is 0. The free function runs for every SSL freed in the process; only connections
            // a watch was installed on hold a pointer at this index.
            let index = newExIndex(0, 0, nil, nil, nil) { _, pointer, _, _, _, _ in
                CloseNotifyWatch.release(pointer)
            }
            guard index >= 0 else { return nil }
            return Functions(setInfoCallback: setInfoCallback, getExData: getExData, setExData: setExData, index: index)
        }
    }
}
