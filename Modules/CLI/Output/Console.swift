#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

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

    /// Writes every byte of `buffer`, retrying after interrupts and short writes. A failed write to
    /// stdout (a full disk, an I/O error) is kept for ``checkOutput()``, which ends the command with it;
    /// one to stderr is dropped, as there is nowhere left to report it. (A closed pipe ends the process
    /// with SIGPIPE before a write can fail, as it ends `cat`, unless SIGPIPE was ignored by whoever
    /// started it: the write then fails with EPIPE, reported like any other, as curl reports it.)
    static func write(_ buffer: UnsafeRawBufferPointer, to stream: Stream) {
        guard var base = buffer.baseAddress else { return }
        var remaining = buffer.count
        while remaining > 0 {
            let count = Glibc.write(stream.descriptor, base, remaining)
            if count < 0 {
                if errno == EINTR { continue }
                if stream == .output { _ = outputError.compareExchange(expected: 0, desired: errno, ordering: .relaxed) }
                return
            }
            remaining -= count
            base += count
        }
    }

    /// The first error a write to stdout met, 0 while none.
    private static let outputError = Atomic<Int32>(0)

    /// Throws when a write to stdout has failed: the body printers stop reading there, and the command fails
    /// rather than exit 0 with the output cut short (`courier URL > FILE` on a full disk; curl exits 23).
    static func checkOutput() throws(CLIError) {
        let code = outputError.load(ordering: .relaxed)
        guard code != 0 else { return }
        throw CLIError("cannot write to standard output: \(String(cString: strerror(code)))")
    }
}
