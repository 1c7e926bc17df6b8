import CourierCore
import CourierMultipart
import Foundation
import HTTPTypes

extension TourStep {
    /// A multipart upload of a field and a file, throttled so its progress bar has time to move.
    static func multipart(server: String) -> TourStep {
        TourStep(
            title: "Multipart upload with progress",
            explanation: "CourierMultipart builds a multipart/form-data body with AFNetworking's layout and an exact Content-Length: a text field, then a 256 KiB file read from disk while it is sent (never loaded whole). The form is throttled to 32 KiB per read with 50 ms pauses so the upload progress has time to show. (name@path on the command line; --throttle BYTES:SECONDS.)",
            command: "courier --throttle 32768:0.05 --progress \(server)/post title=Report report@./report.bin"
        ) { context in
            let directory = FileManager.default.temporaryDirectory.appending(path: "courier-tour-upload-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appending(path: "report.bin")
            let content = Data((0..<(256 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            try content.write(to: file)

            var form = MultipartFormData()
            form.append("Report", name: "title")
            try form.appendFile(at: file.path, name: "report")
            form.throttle = Throttle(packetSize: 32 * 1024, delay: .milliseconds(50))
            context.say("→ POST /post, \(form.partCount) parts, Content-Length: \(form.contentLength), \(form.contentType)")

            let reporter = ProgressReporter(stream: .output, style: ProgressReporter.style(for: .output), prefix: TourNarrator.indent)
            let task = try context.session().upload(form, to: "post")
            reporter.start(total: form.contentLength)
            task.onUploadProgress { progress in reporter.update(completed: progress.completed, total: progress.total) }
            let response: DataResponse
            do {
                response = try await task.response
            } catch {
                reporter.abandon()
                throw error
            }
            reporter.finish()

            let echoed = try JSONSerialization.jsonObject(with: response.data) as? [String: Any]
            let fields = try TourContext.canonicalJSON(of: "form", in: response.data)
            context.say("← \(TourContext.status(response.head)), httpbin's form: \(fields)")
            try TourContext.expect(fields, equals: #"{"title":"Report"}"#, "the echoed form")
            // httpbin returns a binary file part as a base64 data URL.
            let dataURL = (echoed?["files"] as? [String: Any])?["report"] as? String ?? ""
            let received = dataURL.split(separator: ",").last.flatMap { Data(base64Encoded: String($0)) }
            guard received == content else {
                throw TourFailure("httpbin received \(received?.count ?? 0) bytes of the file, not the 262144 sent")
            }
            context.say("httpbin received the file byte for byte (\(content.count) bytes); upload progress ended at \(task.uploadProgress.completed) of \(task.uploadProgress.total ?? 0)")
        }
    }
}
