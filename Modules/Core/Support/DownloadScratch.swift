#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials

/// Where a download keeps its body until it is moved into place, and a failed one its partial file
/// for a resume: a directory of the user's own in the temporary directory, mode 0700.
///
/// Why not the temporary directory itself: on Linux it is `/tmp`, shared by every user of the machine. A body
/// written there with the usual mode (0644 less the umask) could be read by anyone while it arrives, and a
/// partial file kept for resume for as long as it stays. Inside a directory nobody else may enter, the file
/// keeps the mode any file the program creates gets, and has it still once moved to its destination.
package enum DownloadScratch {
    /// `courier-<uid>` in `base` (the temporary directory: `TMPDIR`, else `/tmp`), made if missing.
    /// Should that name be anything but a directory of this user's that nobody else may enter (another
    /// user made it first, or it is a symbolic link), a new directory from `mkdtemp` is used instead, one
    /// per process.
    package static func directory(in base: String = temporaryDirectory()) throws(FileError) -> String {
        let shared = (base.hasSuffix("/") ? base : base + "/") + "courier-\(geteuid())"
        // chmod after mkdir: a umask such as 0277 would leave a directory its owner cannot write to. In a
        // sticky directory such as /tmp nobody else can rename or remove the new entry in between.
        if mkdir(shared, 0o700) == 0 { chmod(shared, 0o700); return shared }
        if errno == EEXIST && isPrivate(shared) { return shared }
        let made = replacements.withLock { replacements -> Result<String, FileError> in
            if let made = replacements[shared], isPrivate(made) { return .success(made) }
            var template = Array((shared + "-XXXXXX").utf8CString)
            guard mkdtemp(&template) != nil else {
                return .failure(FileError(operation: .create, path: shared + "-XXXXXX", errno: errno))
            }
            let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
            chmod(path, 0o700)
            replacements[shared] = path
            return .success(path)
        }
        return try made.get()
    }

    /// The directories made in place of a shared name that was taken, by that name.
    private static let replacements = Locked<[String: String]>([:])

    /// `TMPDIR`, else `/tmp`.
    package static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.path(percentEncoded: false)
    }

    /// A directory itself (not a link to one), owned by this user, that no one else may enter.
    private static func isPrivate(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == geteuid() && (info.st_mode & 0o077) == 0
    }
}
