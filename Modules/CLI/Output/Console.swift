#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unbuffered writes to stdout and stderr, so body bytes, heads, progress and errors reach the
/// terminal in the order they are written, whatever thread writes them.
///
/// Each call is one `write(2)` loop: a line written from an event listener on the curl thread is
/// never interleaved byte by byte with the main thread's.
enum Console {
    /// A standard stream.
    enum Stream: Sendable {
        case output
        case error

        var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }

        /// True when the stream is a terminal.
        var isTerminal: Bool { isatty(descriptor) == 1 }

        /// The terminal's width in columns, or 80 when it is not a terminal.
        var columns: Int {
            var size = winsize()
            guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
            return Int(size.ws_col)
        }
    }

    /// Writes `text` to stdout as it is.
    static func out(_ text: String) { write(text, to: .output) }

    /// Writes `text` and a newline to stderr.
    static func errorLine(_ text: String) { write(text + "\n", to: .error) }

    /// Writes the UTF-8 of `text`.
    static func write(_ text: String, to stream: Stream) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: stream) }
    }

    /// Writes `bytes`.
    static func write(_ bytes: some Collection<UInt8>, to stream: Stream) {
        let written: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            write(UnsafeRawBufferPointer(buffer), to: stream)
        }
        if written == nil {
            Array(bytes).withUnsafeBytes { write($0, to: stream) }
        }
    }

    /// Writes every byte of `buffer`, retrying after interrupts and short writes. A failed write
    /// (a closed pipe) is dropped: there is nowhere left to report it.
    static func write(_ buffer: UnsafeRawBufferPointer, to stream: Stream) {
        guard var base = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let count = Glibc.write(stream.descriptor, base, remaining)
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            remaining -= count
            base += count
        }
    }
}
