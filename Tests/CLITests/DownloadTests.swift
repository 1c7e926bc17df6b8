@testable import CourierCLI
import CourierCore
import Foundation
import Testing

@Suite("Download file names and resume records")
struct DownloadTests {
    private func name(_ disposition: String?, _ url: String?, _ type: String? = nil) -> String {
        DownloadFileName.suggested(contentDisposition: disposition, url: url.flatMap(URL.init(string:)), contentType: type)
    }

    @Test func contentDispositionNamesTheFile() {
        #expect(name(#"attachment; filename="report.pdf""#, "http://h/download?id=3") == "report.pdf")
        #expect(name("attachment; filename=plain.txt", "http://h/x") == "plain.txt")
        #expect(name(#"attachment; filename="a \"quoted\" name.txt"; size=3"#, nil) == #"a "quoted" name.txt"#)
        #expect(name("inline; FileName=upper.csv", nil) == "upper.csv")
    }

    @Test func theExtendedFilenameWins() {
        #expect(name(#"attachment; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve%20file.txt"#, nil) == "naïve file.txt")
        #expect(name(#"attachment; filename*=ISO-8859-1''x.txt; filename="kept.txt""#, nil) == "kept.txt")
    }

    @Test func theURLsLastSegmentIsTheFallback() {
        #expect(name(nil, "http://h/files/1m.bin") == "1m.bin")
        #expect(name("attachment", "http://h/files/my%20file.tar.gz?x=1") == "my file.tar.gz")
        #expect(name(nil, "http://h/") == "index")
        #expect(name(nil, "http://h") == "index")
    }

    @Test func namesAreNeverPathsOrHidden() {
        #expect(name(#"attachment; filename="../../etc/passwd""#, nil) == "passwd")
        #expect(name(#"attachment; filename="..\\..\\boot.ini""#, nil) == "boot.ini")
        #expect(name(#"attachment; filename=".bashrc""#, nil) == "bashrc")
        #expect(name(#"attachment; filename="..""#, "http://h/real.bin") == "real.bin")
        #expect(name("attachment; filename=\"a\u{01}b.txt\"", nil) == "ab.txt")
        #expect(DownloadFileName.sanitized(String(repeating: "x", count: 300)).utf8.count == 255)
    }

    @Test func aMarkJoiningASlashOrADotHidesNeither() {
        // Found by the content-disposition fuzz target's long run: U+0600 (a prepended mark) and "/" are one
        // character, so a split by characters kept the "/" and the name was a path.
        #expect(DownloadFileName.sanitized("\u{600}/c") == "c")
        #expect(DownloadFileName.sanitized("a\u{600}/../\u{600}/etc") == "etc")
        #expect(DownloadFileName.sanitized(".\u{301}hidden") == "\u{301}hidden")
        for name in ["x\u{600}/y", "\u{600}\\y", "/\u{301}y"] {
            #expect(!DownloadFileName.sanitized(name).unicodeScalars.contains { $0 == "/" || $0 == "\\" }, "\(name.debugDescription)")
        }
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
        #expect(DownloadFileName.sanitized(long).utf8.count == 254)
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
