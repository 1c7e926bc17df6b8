@testable import CourierCore
import FoundationEssentials
import HTTPTypes
import Testing

/// Where a download's bytes go, from the response head alone (issue 13, part 5); the integration suite
/// resumes real downloads from nginx.
@Suite struct DownloadPlanTests {
    private let temporary = URL(fileURLWithPath: "/tmp/new.part")
    private let partial = URL(fileURLWithPath: "/tmp/old.part")
    private let request = HTTPRequest(method: .get, scheme: "http", authority: "files.test", path: "/f")

    private func head(_ code: Int, _ fields: HTTPFields = [:]) -> HTTPResponse {
        HTTPResponse(status: .init(code: code), headerFields: fields)
    }

    private var resuming: ResumeData {
        ResumeData(request: request, partialFileURL: partial, bytesWritten: 100, validator: "\"v1\"")
    }

    @Test func aFreshDownloadIsResumableWithAValidatorAndNoCoding() throws {
        let strong = try DownloadPlan(response: head(200, [.eTag: "\"abc\"", .lastModified: "Tue, 24 Nov 2026 10:00:00 GMT"]), resuming: nil, temporary: temporary)
        #expect(strong.file == temporary && !strong.appends && strong.ownsFile && strong.validator == "\"abc\"")
        let weak = try DownloadPlan(response: head(200, [.eTag: "W/\"abc\"", .lastModified: "Tue, 24 Nov 2026 10:00:00 GMT"]), resuming: nil, temporary: temporary)
        #expect(weak.validator == "Tue, 24 Nov 2026 10:00:00 GMT")
        #expect(try DownloadPlan(response: head(200, [.eTag: "W/\"abc\""]), resuming: nil, temporary: temporary).validator == nil)
        #expect(try DownloadPlan(response: head(200, [.eTag: "\"abc\"", .contentEncoding: "gzip"]), resuming: nil, temporary: temporary).validator == nil)
        #expect(try DownloadPlan(response: head(404, [.eTag: "\"abc\""]), resuming: nil, temporary: temporary).validator == nil)

        let data = try #require(strong.resumeData(request: request, written: 10))
        #expect(data.partialFileURL == temporary && data.bytesWritten == 10 && data.validator == "\"abc\"")
        #expect(strong.resumeData(request: request, written: 0) == nil)  // nothing to resume
    }

    @Test func aPartialAnswerFromTheRightByteIsAppended() throws {
        let plan = try DownloadPlan(response: head(206, [.contentRange: "bytes 100-199/200"]), resuming: resuming, temporary: temporary)
        #expect(plan.file == partial && plan.appends && !plan.ownsFile && plan.startOffset == 100)
        var sent = request
        sent.headerFields[.range] = "bytes=100-"
        sent.headerFields[.ifRange] = "\"v1\""
        let again = try #require(plan.resumeData(request: sent, written: 50))
        #expect(again.bytesWritten == 150 && again.validator == "\"v1\"" && again.request == request)
    }

    @Test func aPartialAnswerThatDoesNotFitIsRefused() {
        for fields: HTTPFields in [
            [.contentRange: "bytes 0-199/200"], [.contentRange: "bytes 101-199/200"], [:],
            [.contentRange: "bytes 100-199/200", .contentEncoding: "gzip"],
        ] {
            #expect(throws: TransportError.self, "\(fields)") { try DownloadPlan(response: head(206, fields), resuming: resuming, temporary: temporary) }
        }
    }

    @Test func aWholeAnswerStartsThePartialFileOver() throws {
        let plan = try DownloadPlan(response: head(200, [.eTag: "\"v2\""]), resuming: resuming, temporary: temporary)
        #expect(plan.file == partial && !plan.appends && plan.ownsFile && plan.startOffset == 0 && plan.validator == "\"v2\"")
    }

    @Test func rangeNotSatisfiable() throws {
        let complete = try DownloadPlan(response: head(416, [.contentRange: "bytes */100"]), resuming: resuming, temporary: temporary)
        #expect(complete.alreadyComplete && complete.file == partial && !complete.ownsFile)
        #expect(throws: TransportError.self) { try DownloadPlan(response: head(416, [.contentRange: "bytes */300"]), resuming: resuming, temporary: temporary) }
        #expect(throws: TransportError.self) { try DownloadPlan(response: head(416), resuming: resuming, temporary: temporary) }
    }

    @Test func anotherAnswerIsNotTheFile() throws {
        let plan = try DownloadPlan(response: head(503), resuming: resuming, temporary: temporary)
        #expect(plan.file == temporary && plan.ownsFile && !plan.appends)
        #expect(plan.resumeData(request: request, written: 10) == resuming)  // the partial file is still good
    }

    @Test func theResumingRequest() {
        let sent = resuming.resumingRequest
        #expect(sent.headerFields[.range] == "bytes=100-")
        #expect(sent.headerFields[.ifRange] == "\"v1\"")
        #expect(sent.headerFields[.acceptEncoding] == "identity")
    }
}
