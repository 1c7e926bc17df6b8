import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX file descriptor that closes itself: Core's file I/O without FoundationNetworking or
/// corelibs' `FileHandle`.
package final class FileDescriptor: Sendable {
    package let rawValue: Int32
    package let path: String

    private init(rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
    }

    deinit { close(rawValue) }

    /// Opens `path` for reading.
    package static func openForReading(_ path: String) throws(FileError) -> FileDescriptor {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(operation: .open, path: path, errno: errno) }
        return FileDescriptor(rawValue: fd, path: path)
    }

    /// Opens `path` to read a regular file's bytes: anything else (a named pipe, a device, a directory) is refused at
    /// once with ``size()``'s reason. A plain open of a named pipe that no program writes to waits for one without end,
    /// and a request's timeout does not cover it: an upload of such a path hung before its request began.
    package static func openRegularFileForReading(_ path: String) throws(FileError) -> FileDescriptor {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FileError(operation: .open, path: path, errno: errno) }
        let file = FileDescriptor(rawValue: fd, path: path)
        _ = try file.size()
        // A regular file's reads never wait, so the flag changes nothing; cleared all the same, as a plain open leaves it.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return file
    }

    /// Creates (or truncates) `path` for writing; with `append`, opens it at its end instead.
    package static func openForWriting(_ path: String, append: Bool = false) throws(FileError) -> FileDescriptor {
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else { throw FileError(operation: .create, path: path, errno: errno) }
        return FileDescriptor(rawValue: fd, path: path)
    }

    /// The size of the file in bytes.
    package func size() throws(FileError) -> Int64 {
        var info = stat()
        guard fstat(rawValue, &info) == 0 else { throw FileError(operation: .stat, path: path, errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            if (info.st_mode & S_IFMT) == S_IFDIR { throw FileError(operation: .stat, path: path, errno: EISDIR) }
            throw FileError(operation: .stat, path: path, reason: "not a regular file (a device, a pipe or a socket has no size to send)")
        }
        return Int64(info.st_size)
    }

    /// The whole of a small file (a certificate, a key), read at once to its end: a pipe too (`--cacert <(…)`), but
    /// a directory or anything past `limit` bytes is refused, with the system's reason. Like `cat` (and curl), it
    /// waits for a pipe's writer to finish, and for one to open a named pipe that has none yet.
    package static func contents(of path: String, limit: Int = 16 << 20) throws(FileError) -> [UInt8] {
        let file = try openForReading(path)
        var bytes: [UInt8] = []
        var failure: Int32 = 0
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 65_536) { buffer in
            while bytes.count <= limit {
                let got = systemRead(file.rawValue, buffer.baseAddress, buffer.count)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno  // EISDIR for a directory
                    return
                }
                if got == 0 { return }
                bytes += buffer[..<got]
            }
        }
        if failure != 0 { throw FileError(operation: .read, path: path, errno: failure) }
        guard bytes.count <= limit else { throw FileError(operation: .read, path: path, reason: "larger than \(limit) bytes") }
        return bytes
    }

    /// Reads up to `count` bytes at `offset`; an empty result means end of file.
    package func read(upTo count: Int, at offset: Int64) throws(FileError) -> ArraySlice<UInt8> {
        // Uninitialized: pread fills what it reports, and only that much is kept.
        var failure: Int32 = 0
        let buffer = [UInt8](unsafeUninitializedCapacity: Swift.max(0, count)) { raw, initialized in
            let got = pread(rawValue, raw.baseAddress, raw.count, off_t(offset))
            if got < 0 { failure = errno }
            initialized = Swift.max(0, got)
        }
        guard failure == 0 else { throw FileError(operation: .read, path: path, errno: failure) }
        return buffer[...]
    }

    /// Writes all of `bytes`.
    package func write(_ bytes: some ContiguousBytes) throws(FileError) {
        let failure: Int32? = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return nil }
            var offset = 0
            while offset < raw.count {
                let written = systemWrite(rawValue, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw FileError(operation: .write, path: path, errno: failure) }
    }
}

/// `write(2)`, named apart from the method above.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}

/// `read(2)`, named apart from the method `read(upTo:at:)`.
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
