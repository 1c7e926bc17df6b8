@testable import CourierCore
import Foundation
import Testing

/// The directory downloads write their bodies to before the move: the user's own, whatever is in the
/// temporary directory already.
@Suite("Download scratch directory")
struct DownloadScratchTests {
    private func base() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "courier-scratch-\(UUID().uuidString)").path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func mode(_ path: String) -> (kind: mode_t, permissions: mode_t, owner: uid_t)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT, info.st_mode & 0o7777, info.st_uid)
    }

    @Test func aMissingDirectoryIsMadeForThisUserAlone() throws {
        let base = try base()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let directory = try DownloadScratch.directory(in: base)
        #expect(directory == base + "/courier-\(geteuid())")
        let made = try #require(mode(directory))
        #expect(made.kind == S_IFDIR && made.permissions == 0o700 && made.owner == geteuid())
        #expect(try DownloadScratch.directory(in: base) == directory)
    }

    @Test func aNameOthersCanEnterOrALinkIsNotUsed() throws {
        let base = try base()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let shared = base + "/courier-\(geteuid())"
        let elsewhere = base + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])

        // A link to a private directory: whoever made the link decides where bodies go.
        try FileManager.default.createSymbolicLink(atPath: shared, withDestinationPath: elsewhere)
        let instead = try DownloadScratch.directory(in: base)
        #expect(instead != shared && instead.hasPrefix(shared + "-"))
        let made = try #require(mode(instead))
        #expect(made.kind == S_IFDIR && made.permissions == 0o700 && made.owner == geteuid())
        #expect(try DownloadScratch.directory(in: base) == instead, "one replacement per process, not one per download")

        // A directory anyone may enter.
        let other = try self.base()
        defer { try? FileManager.default.removeItem(atPath: other) }
        let open = other + "/courier-\(geteuid())"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false)
        chmod(open, 0o777)
        let replacement = try DownloadScratch.directory(in: other)
        #expect(replacement.hasPrefix(open + "-"))
        #expect(mode(replacement)?.permissions == 0o700)
        #expect(mode(open)?.permissions == 0o777, "left as it was")

        // A plain file.
        let third = try self.base()
        defer { try? FileManager.default.removeItem(atPath: third) }
        #expect(FileManager.default.createFile(atPath: third + "/courier-\(geteuid())", contents: Data()))
        #expect(try DownloadScratch.directory(in: third).hasPrefix(third + "/courier-\(geteuid())-"))
    }

    @Test func aDirectoryOfAnotherUserIsNotUsed() throws {
        guard geteuid() == 0 else { return }  // only root can give a directory to another user
        let base = try base()
        defer { try? FileManager.default.removeItem(atPath: base) }
        let shared = base + "/courier-\(geteuid())"
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        #expect(chown(shared, 65534, 65534) == 0)
        #expect(try DownloadScratch.directory(in: base).hasPrefix(shared + "-"))
    }

    @Test func aBaseThatCannotHoldOneIsAFileError() {
        #expect(throws: FileError.self) { try DownloadScratch.directory(in: "/proc/self/no-such-directory") }
    }
}
