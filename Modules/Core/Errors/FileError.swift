#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file could not be opened, read, written or moved.
public struct FileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done to the file.
    public struct Operation: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// Opening a file to read it.
        public static let open = Operation(name: "open")
        /// Creating a file to write it.
        public static let create = Operation(name: "create")
        /// Reading its size and kind.
        public static let stat = Operation(name: "inspect")
        /// Reading bytes.
        public static let read = Operation(name: "read")
        /// Writing bytes.
        public static let write = Operation(name: "write")
        /// Moving it to its destination.
        public static let move = Operation(name: "move")
        /// The operation's name, e.g. `open`.
        public var description: String { name }
    }

    /// What was being done.
    public let operation: Operation
    /// The file's path.
    public let path: String
    /// The POSIX error number, when the system gave one.
    public let errno: Int32?
    /// The reason, when it was not a POSIX error.
    public let reason: String?

    /// A failure with a POSIX error number.
    public init(operation: Operation, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.reason = nil
    }

    /// A failure with a reason of its own.
    public init(operation: Operation, path: String, reason: String) {
        self.operation = operation
        self.path = path
        self.errno = nil
        self.reason = reason
    }

    /// e.g. `cannot open /tmp/x: No such file or directory`.
    public var description: String {
        "cannot \(operation) \(path): \(why)"
    }

    /// The system's reason alone, e.g. `Is a directory`.
    package var why: String {
        errno.map { String(cString: strerror($0)) } ?? reason ?? "unknown error"
    }
}
