#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials

/// Replacing a file that holds credentials or a cache entry: written to a new file beside it with mode 0600,
/// flushed, then renamed over it, so a reader (another process, curl) sees the old file or the new one, never
/// half of one, and nobody but the owner can read either. The cookie jar, the HTTP cache and the CLI's sessions
/// write through it.
package enum PrivateFile {
    package static func replace(_ path: String, with data: Data) throws(FileError) {
        let temporary = "\(path).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(operation: .create, path: path, errno: errno) }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 { if errno == EINTR { continue }; return false }
                written += result
            }
            return fsync(descriptor) == 0
        }
        let writeErrno = errno
        close(descriptor)
        guard ok else {
            unlink(temporary)
            throw FileError(operation: .write, path: path, errno: writeErrno)
        }
        guard rename(temporary, path) == 0 else {
            let renameErrno = errno
            unlink(temporary)
            throw FileError(operation: .move, path: path, errno: renameErrno)
        }
    }
}
