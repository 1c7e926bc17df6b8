import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// What a server can do to the files a download makes: name them (httpbin's `/response-headers` sends any
/// `Content-Disposition`), and, while a body arrives or a partial one waits for a resume, have them sit in the
/// temporary directory every user of the machine shares.
@Suite("Download safety")
struct DownloadSafetyTests {
    /// A `Content-Disposition` a server sends, and the name the file must get in the chosen directory.
    struct Case: CustomTestStringConvertible, Sendable {
        let disposition: String
        let expected: String
        var testDescription: String { disposition.count > 60 ? String(disposition.prefix(60)) + "…" : disposition }
    }

    static let cases: [Case] = [
        Case(disposition: #"attachment; filename="report.pdf""#, expected: "report.pdf"),
        Case(disposition: #"attachment; filename="../../escaped.txt""#, expected: "escaped.txt"),
        Case(disposition: #"attachment; filename="/etc/cron.d/job""#, expected: "job"),
        Case(disposition: #"attachment; filename=".htaccess""#, expected: "htaccess"),
        Case(disposition: "attachment; filename*=UTF-8''..%2F..%2F.profile", expected: "profile"),
        Case(disposition: #"attachment; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve.txt"#, expected: "naïve.txt"),
        Case(disposition: "attachment; filename*=UTF-8''two%0Alines%1B%5B31m.txt", expected: "twolines[31m.txt"),
        Case(disposition: "attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe", expected: "invoicefdp.exe"),
        Case(disposition: #"attachment; filename="\#(String(repeating: "x", count: 300))""#, expected: String(repeating: "x", count: 255)),
        Case(disposition: #"attachment; filename="..""#, expected: "response-headers"),
    ]

    @Test(arguments: cases)
    func aServerNamesTheFileButNotWhereItGoes(_ example: Case) async throws {
        let s = session()
        let parent = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let directory = parent.appending(path: "downloads")
        let query = example.disposition.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let request = try s.makeRequest(.get, "response-headers?Content-Disposition=\(query)")
        let response = try await s.downloadTask(with: request, to: .suggested(in: directory)).response
        #expect(response.head.headerFields[.contentDisposition] == example.disposition, "httpbin sent what the case says")
        #expect(response.fileURL == directory.appending(path: example.expected))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path(percentEncoded: false)) == [example.expected])
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path(percentEncoded: false)) == ["downloads"])
        #expect(try Data(contentsOf: response.fileURL).count > 0)
    }

    /// `.removePreviousFile` replaces a file of the suggested name, on the file system of the scratch directory
    /// and on another (`/dev/shm`, a tmpfs, where the move is a copy), and never a directory of that name, which
    /// it once deleted with everything in it.
    @Test(arguments: [false, true])
    func replacingAFileNeverRemovesADirectory(onAnotherFileSystem: Bool) async throws {
        let s = session()
        let mine = "download-\(getpid())-\(s.id)-"
        // A file of that name from a program that had this process ID before is not this test's.
        let before = Set(((try? FileManager.default.contentsOfDirectory(atPath: Self.scratchDirectory)) ?? []).filter { $0.hasPrefix(mine) })
        let parent: URL
        if onAnotherFileSystem {
            parent = URL(filePath: "/dev/shm").appending(path: "courier-it-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            var shm = stat(), scratch = stat()
            #expect(stat("/dev/shm", &shm) == 0 && stat(Self.scratchDirectory, &scratch) == 0)
            #expect(shm.st_dev != scratch.st_dev, "/dev/shm is on the scratch directory's file system: the copy is not exercised")
        } else {
            parent = try temporaryDirectory()
        }
        defer { try? FileManager.default.removeItem(at: parent) }
        let destination = DownloadDestination.suggested(in: parent, options: [.removePreviousFile])
        func download(_ name: String) async throws -> DownloadResponse {
            let query = "attachment; filename=\"\(name)\"".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return try await s.downloadTask(with: try s.makeRequest(.get, "response-headers?Content-Disposition=\(query)"), to: destination).response
        }

        let file = parent.appending(path: "report.json")
        try Data("old".utf8).write(to: file)
        let replaced = try await download("report.json")
        #expect(replaced.fileURL == file)
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) is [String: Any], "httpbin's body replaced the old file")

        let kept = parent.appending(path: "reports/2026/q3.pdf")
        try FileManager.default.createDirectory(at: kept.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: kept)
        do {
            _ = try await download("reports")
            Issue.record("the download replaced a directory")
        } catch {
            let failure = try #require(error as? CourierError)
            #expect(failure.stage == .download)
            #expect((failure.underlyingError as? FileError)?.errno == EISDIR, "\(failure)")
        }
        #expect(try String(decoding: Data(contentsOf: kept), as: UTF8.self) == "keep")
        // This session's files only (`download-<pid>-<session>-<task>-…`): other suites' downloads run beside this
        // one, and earlier processes' partial files wait in the same directory with the same session numbers.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: Self.scratchDirectory).filter { $0.hasPrefix(mine) && !before.contains($0) }
        #expect(leftovers.isEmpty, "the failed move left its body behind: \(leftovers)")
    }

    /// The body of a download while it arrives (nginx's `/slow-files/` paces 1 MiB over about two seconds), a
    /// partial file kept for resume, and the file in place: nobody else can read the first two, and the last
    /// has the mode any file the process creates gets.
    ///
    /// The partial file of a download cancelled part-way is the file its body was written to as it arrived, so it
    /// is what the test holds to. The open file seen in `/proc/self/fd` is checked too when the test sees it: under
    /// a CPU hog the curl thread can buffer the whole paced body before the session opens the file, and write it in a
    /// moment no poll is sure to catch (a clean-clone run at `57328c6`).
    @Test func aBodyIsPrivateUntilItIsMoved() async throws {
        let s = session(Servers.nginx)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = directory.appending(path: "1m.bin")
        let task = s.downloadTask(with: try s.makeRequest(.get, "slow-files/1m.bin"), to: DownloadDestination(url: target))
        task.task.resume()
        // This download's own file: other suites' downloads run beside this one.
        _ = await eventually(timeout: .seconds(5)) { Self.openPartFile(of: s, task.task) != nil }
        let partFile = Self.openPartFile(of: s, task.task)
        let response = try await task.response
        if let partFile {
            let parent = (partFile as NSString).deletingLastPathComponent
            #expect(Self.isPrivateDirectory(parent), "\(partFile) is in \(parent), which others may enter")
        }
        #expect(Self.permissions(response.fileURL.path(percentEncoded: false)) == Self.modeOfANewFile(in: directory))

        // Cancelled part-way (by a listener, which hears progress on the curl thread as the bytes come, as
        // ResumableDownloadTests does): the partial file kept for a resume is in the same private place. An attempt
        // whose whole body came before the cancel took effect proves nothing and is made again, three times at most.
        let cancelling = session(Servers.nginx) { $0.eventListener = ResumableDownloadTests.CancelAt(offset: 300_000) }
        for attempt in 1...3 {
            let never = directory.appending(path: "never")
            do {
                _ = try await cancelling.downloadTask(with: try cancelling.makeRequest(.get, "slow-files/1m.bin"), to: DownloadDestination(url: never)).response
                try? FileManager.default.removeItem(at: never)
                if attempt == 3 { Issue.record("three downloads ended before the cancel took effect") }
            } catch {
                #expect(error.isCancellation, "\(error)")
                let partial = try #require(error.resumeData?.partialFileURL.path(percentEncoded: false), "\(error)")
                defer { try? FileManager.default.removeItem(atPath: partial) }
                #expect(Self.isPrivateDirectory((partial as NSString).deletingLastPathComponent), "\(partial)")
                break
            }
        }
    }

    /// Where downloads keep their bodies (Core's `DownloadScratch`, when nobody has taken its name).
    private static var scratchDirectory: String {
        FileManager.default.temporaryDirectory.appending(path: "courier-\(geteuid())").path(percentEncoded: false)
    }

    /// The file `task` of session `s` writes its body to, while it is open (`download-<pid>-<session>-<task>-…part`;
    /// found by `contains`, so that the name before the scratch directory, `courier-download-…`, is found too).
    private static func openPartFile(of s: Session, _ task: SessionTask) -> String? {
        let prefix = "download-\(getpid())-\(s.id)-\(task.id)-"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.lazy.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .first { ($0 as NSString).lastPathComponent.contains(prefix) && $0.hasSuffix(".part") }
    }

    private static func isPrivateDirectory(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFDIR && info.st_uid == geteuid() && (info.st_mode & 0o077) == 0
    }

    private static func permissions(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// The mode `open(2)` gives a new file of mode 0644 here, under this process's umask.
    private static func modeOfANewFile(in directory: URL) -> mode_t? {
        let probe = directory.appending(path: "probe-\(UUID().uuidString)").path(percentEncoded: false)
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { return nil }
        close(descriptor)
        defer { unlink(probe) }
        return permissions(probe)
    }
}
