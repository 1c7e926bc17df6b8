#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials

/// Replacing a file that holds credentials: written to a new file beside it with mode 0600, flushed, then
/// renamed over it, so a reader (another process, curl) sees the old file or the new one, never half of one,
/// and nobody but the owner can read either.
enum PrivateFile {
    static func replace(_ path: String, with data: Data) throws(CookieFileError) {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(path, "cannot be written") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 { if errno == EINTR { continue }; return false }
                written += result
            }
            return fsync(descriptor) == 0
        }
        close(descriptor)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw failure(path, "cannot be written")
        }
    }

    private static func failure(_ path: String, _ what: String) -> CookieFileError {
        CookieFileError(path: path, reason: "\(what): \(String(cString: strerror(errno)))")
    }
}
