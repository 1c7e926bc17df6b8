#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file the body is written to, opened the way `-o`, `-d` and `-c` need.
final class OutputFile {
    /// How to open the file.
    enum Mode {
        /// Create it; fail if it exists (`-d` never overwrites).
        case createNew
        /// Create it or empty it (`-o`, or a resume the server answered with the whole body).
        case truncate
        /// Add to its end (a resume answered with 206).
        case append
    }

    /// The path, as given.
    let path: String
    private let descriptor: Int32

    /// Opens `path`.
    ///
    /// - Throws: ``OpenError/exists`` for ``Mode/createNew`` when the file is there already,
    ///   a ``CLIError`` for any other failure.
    init(path: String, mode: Mode) throws(OpenError) {
        var flags = O_WRONLY | O_CREAT | O_CLOEXEC
        switch mode {
        case .createNew: flags |= O_EXCL
        case .truncate: flags |= O_TRUNC
        case .append: flags |= O_APPEND
        }
        let descriptor = open(path, flags, 0o644)
        guard descriptor >= 0 else {
            let code = errno
            if code == EEXIST { throw .exists }
            throw .failed(CLIError("cannot open \(path) for writing: \(String(cString: strerror(code)))"))
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Whether the file is a regular file, which a later `-c` can resume; not a device (`-o /dev/null`) or a pipe
    /// (`-o >(gzip > f)`), beside which no resume record belongs.
    var isRegularFile: Bool {
        var info = stat()
        return fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Why a file could not be opened.
    enum OpenError: Error {
        /// ``Mode/createNew`` found a file there.
        case exists
        /// Any other failure, ready to report.
        case failed(CLIError)

        /// The error to report.
        var report: CLIError {
            switch self {
            case .exists: return CLIError("the file already exists")
            case .failed(let error): return error
            }
        }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: ArraySlice<UInt8>) throws(CLIError) {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { buffer in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                let count = Glibc.write(descriptor, base, remaining)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                remaining -= count
                base += count
            }
        }
        if failure != 0 {
            throw CLIError("cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    /// The size of the file at `path`, or `nil` when there is none.
    static func size(at path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// True when something exists at `path`.
    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
