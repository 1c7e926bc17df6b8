@testable import CourierCLI
import CourierCore
import Foundation
import Testing

@Suite("Download file names and resume records")
struct DownloadTests {
    private func name(_ disposition: String?, _ url: String?, _ type: String? = nil) -> String {
        DownloadFileName.suggested(contentDisposition: disposition, url: url.flatMap(URL.init(string:)), contentType: type)
    }

    @Test func theURLsLastSegmentIsTheFallback() {
        #expect(name(nil, "http://h/files/1m.bin") == "1m.bin")
        #expect(name("attachment", "http://h/files/my%20file.tar.gz?x=1") == "my file.tar.gz")
        #expect(name(nil, "http://h/") == "index")
        #expect(name(nil, "http://h") == "index")
    }

    @Test func namesAreNeverPathsOrHidden() {
        // The rules are Core's SuggestedFileName (SuggestedFileNameTests); these check `-d` applies them.
        #expect(name(#"attachment; filename="../../etc/passwd""#, nil) == "passwd")
        #expect(name(#"attachment; filename=".bashrc""#, nil) == "bashrc")
        #expect(name(#"attachment; filename="..""#, "http://h/real.bin") == "real.bin")
        #expect(name(#"attachment; filename="..""#, "http://h/..%2F..") == "index")
    }

    @Test func aNameWithoutExtensionGetsOneFromWellKnownTypes() {
        #expect(name(nil, "http://h/get", "application/json") == "get.json")
        #expect(name(nil, "http://h/html", "text/html; charset=utf-8") == "html.html")
        #expect(name(nil, "http://h/", "text/plain") == "index.txt")
        #expect(name(nil, "http://h/bytes/100", "application/octet-stream") == "100")
        #expect(name(nil, "http://h/data.csv", "application/json") == "data.csv")
    }

    @Test func aNameWithItsExtensionFitsInTwoHundredFiftyFiveBytes() {
        // Found by the content-disposition fuzz target: a 255-byte name without a dot became 260 bytes with ".html".
        let long = String(repeating: "é", count: 200)  // 400 bytes
        let name = DownloadFileName.suggested(contentDisposition: "attachment; filename=\"\(long)\"", url: nil, contentType: "text/html")
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix(".html") && name.hasPrefix("éé"))
    }

    @Test func existingFilesAreNeverOverwritten() {
        let taken: Set<String> = ["report.pdf", "report-1.pdf", "archive", "archive-1", "x.tar.gz"]
        #expect(DownloadFileName.unique("new.pdf") { taken.contains($0) } == "new.pdf")
        #expect(DownloadFileName.unique("report.pdf") { taken.contains($0) } == "report-2.pdf")
        #expect(DownloadFileName.unique("archive") { taken.contains($0) } == "archive-2")
        #expect(DownloadFileName.unique("x.tar.gz") { taken.contains($0) } == "x.tar-1.gz")
    }

    @Test func contentRanges() {
        #expect(ContentRange("bytes 100-199/200") == ContentRange(first: 100, last: 199, completeLength: 200))
        #expect(ContentRange("bytes 0-9/*") == ContentRange(first: 0, last: 9, completeLength: nil))
        #expect(ContentRange("bytes */1048576") == ContentRange(first: nil, last: nil, completeLength: 1_048_576))
        #expect(ContentRange("bytes */*") == nil)
        #expect(ContentRange("items 0-1/2") == nil)
        // Impossible or malformed ranges (found by the content-range fuzz target): a resume must not trust them.
        #expect(ContentRange("bytes 1-1/1") == nil)
        #expect(ContentRange("bytes 100-199/150") == nil)
        #expect(ContentRange("bytes */-5") == nil)
        #expect(ContentRange("bytes +5-9/10") == nil)
        #expect(ContentRange("bytes 5-+9/10") == nil)
        #expect(ContentRange("bytes 5 -9/10") == nil)
        #expect(ContentRange("bytes 5-9/ 10") == nil)
        #expect(ContentRange("bytes 0-99999999999999999999/*") == nil)
        #expect(ContentRange("bytes 0-0/1") == ContentRange(first: 0, last: 0, completeLength: 1))
        #expect(ContentRange("bytes 9-0/10") == nil)
    }

    @Test func resumeRecordsRoundTripAndPickAStrongValidator() throws {
        let record = ResumeRecord(url: "http://h/f.bin", etag: #""abc""#, lastModified: "Wed, 13 Mar 2024 10:00:00 GMT")
        #expect(record.serialized == "url: http://h/f.bin\netag: \"abc\"\nlast-modified: Wed, 13 Mar 2024 10:00:00 GMT\n")
        #expect(ResumeRecord(serialized: record.serialized) == record)
        #expect(record.ifRange == #""abc""#)
        #expect(ResumeRecord(url: "u", etag: #"W/"weak""#, lastModified: "date").ifRange == "date")
        #expect(ResumeRecord(url: "u", etag: #"W/"weak""#, lastModified: nil).ifRange == nil)
        #expect(ResumeRecord(serialized: "etag: x\n") == nil)
        #expect(ResumeRecord.sidecarPath(for: "/tmp/f.bin") == "/tmp/f.bin.courier-resume")
    }

    @Test func resumeRecordsLiveNextToTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "courier-cli-test-\(getpid()).bin").path(percentEncoded: false)
        defer { ResumeRecord.remove(for: path) }
        #expect(ResumeRecord.load(for: path) == nil)
        let record = ResumeRecord(url: "http://h/f", etag: nil, lastModified: "date")
        record.save(for: path)
        #expect(ResumeRecord.load(for: path) == record)
        ResumeRecord.remove(for: path)
        #expect(ResumeRecord.load(for: path) == nil)
    }
}
