@testable import CourierCLI
import CourierCore
import CourierMultipart
import Foundation
import HTTPTypes
import Testing

@Suite("Multipart items")
final class MultipartPlanTests {
    /// The test's files: each test has an instance of its own, and the folder goes with it (every run left one behind).
    private let directory = FileManager.default.temporaryDirectory.appending(path: "courier-cli-\(UUID().uuidString)")

    deinit { try? FileManager.default.removeItem(at: directory) }

    private func temporaryFile(_ name: String, _ content: String) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appending(path: name)
        try Data(content.utf8).write(to: url)
        return url.path
    }

    @Test func aFileItemMakesAMultipartPOSTWithFieldsFirst() async throws {
        let path = try temporaryFile("notes.txt", "hello")
        let plan = try RequestPlan.build(line: RequestLine.parse(["http://h/post", "doc@\(path)", "title=Notes", "tags[]=a"]), encoding: nil, authorization: nil)
        #expect(plan.request.method == .post)
        let form = try #require(plan.form)
        #expect(plan.body == nil)
        #expect(plan.request.headerFields[.contentType] == form.contentType)
        #expect(plan.request.headerFields[.contentLength] == String(form.contentLength))
        #expect(plan.request.headerFields[.accept] == "*/*")
        let sent = String(decoding: try await #require(plan.uploadBody).collect(upTo: 1 << 20), as: UTF8.self)
        let names = sent.split(separator: "form-data; name=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        #expect(names == ["tags[]", "title", "doc"])
        #expect(sent.contains("filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n"))
    }

    @Test func multipartFlagSendsDataItemsAsParts() async throws {
        let plan = try RequestPlan.build(line: RequestLine.parse(["http://h/post", "a=1"]), encoding: .multipart, authorization: nil)
        let sent = String(decoding: try await #require(plan.uploadBody).collect(upTo: 1 << 20), as: UTF8.self)
        #expect(sent.contains("Content-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n"))
    }

    @Test func fileItemsRefuseOtherEncodingsRawJSONAndGET() throws {
        let path = try temporaryFile("a.bin", "x")
        #expect(throws: CLIError.self) { try RequestPlan.build(line: RequestLine.parse(["http://h/", "f@\(path)"]), encoding: .json, authorization: nil) }
        #expect(throws: CLIError.self) { try RequestPlan.build(line: RequestLine.parse(["http://h/", "f@\(path)"]), encoding: .form, authorization: nil) }
        #expect(throws: CLIError.self) { try RequestPlan.build(line: RequestLine.parse(["http://h/", "f@\(path)", "n:=1"]), encoding: nil, authorization: nil) }
        let get = #expect(throws: CLIError.self) { try RequestPlan.build(line: RequestLine.parse(["GET", "http://h/", "f@\(path)"]), encoding: nil, authorization: nil) }
        #expect(get?.description.contains("GET") == true)
    }

    @Test func anUnreadableFileIsAnErrorBeforeSending() throws {
        let error = #expect(throws: CLIError.self) {
            try RequestPlan.build(line: RequestLine.parse(["http://h/", "f@/nonexistent-courier/x.png"]), encoding: nil, authorization: nil)
        }
        #expect(error?.description.contains("File URL not reachable.") == true)
        #expect(error?.description.contains("/nonexistent-courier/x.png") == true)
    }

    @Test func throttleNeedsAForm() throws {
        #expect(throws: CLIError.self) {
            try RequestPlan.build(line: RequestLine.parse(["http://h/", "a=1"]), encoding: nil, authorization: nil, throttle: .mobileNetwork)
        }
        let path = try temporaryFile("a.bin", "x")
        let plan = try RequestPlan.build(line: RequestLine.parse(["http://h/", "f@\(path)"]), encoding: nil, authorization: nil, throttle: .mobileNetwork)
        #expect(plan.form?.throttle == .mobileNetwork)
    }

    @Test func curlCommandUsesFormOptions() throws {
        let path = try temporaryFile("pic.png", "x")
        let plan = try RequestPlan.build(line: RequestLine.parse(["http://h/post", "pic@\(path)", "name=A b"]), encoding: nil, authorization: nil)
        let words = CurlCommand(plan: plan, options: CurlCommand.Options()).words
        #expect(words.prefix(2) == ["curl", "http://h/post"])
        #expect(!words.contains { $0.hasPrefix("Content-Type") || $0.hasPrefix("Content-Length") })
        #expect(words.contains("--form-string"))
        #expect(words.contains("name=A b"))
        #expect(words.contains("pic=@\"\(path)\";type=image/png"))
    }
}
