import CourierCore
import CourierCurl
import Foundation
import HTTPTypes
import Testing

/// What a server can do to the files a download makes: name them (httpbin's `/response-headers` sends any
/// `Content-Disposition`).
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
}
