import CourierCore
import Foundation
import HTTPTypes

/// The exercises that move bodies: uploads from memory and from a file, downloads to a file.
extension SoakClient {
    func uploadSmall(_ plan: inout RequestPlan) async throws {
        var bytes = [UInt8](repeating: 0, count: plan.draw(1...16_384))
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: plan.generator.next()) }
        let data = Data(bytes)
        let headers: HTTPFields = [.contentType: "application/octet-stream"]
        if plan.draw(0...1) == 0 {
            let upload = try request(.post, servers.nginx + "/upload", headers: headers)
            let response = try await session.uploadTask(with: upload, from: .data(data)).response
            try check(response.status.code == 200, "status \(response.status.code), expected 200")
            try check(response.text == "{\"ok\":true}\n", "nginx answered \(response.text.debugDescription)")
            return
        }
        let upload = try request(.post, servers.sink + "/soak", headers: headers)
        let response = try await session.data(for: upload, body: Body(data))
        try checkSink(response, length: data.count, sha256: sha256Hex(data))
    }

    func uploadLarge(_ plan: inout RequestPlan) async throws {
        let upload = try request(.put, servers.sink + "/soak", headers: [.contentType: "application/octet-stream"])
        let response = try await session.uploadTask(with: upload, from: .file(path: servers.oneMiBPath)).response
        try checkSink(response, length: 1 << 20, sha256: servers.oneMiBSHA256)
    }

    func download(_ plan: inout RequestPlan) async throws {
        let target = scratchFile(plan.index)
        let task = session.downloadTask(
            with: try request(.get, servers.nginx + "/files/1m.bin"), to: DownloadDestination(url: target)
        )
        let response = try await task.response
        try check(response.status.code == 200, "status \(response.status.code), expected 200")
        try check(response.fileURL == target, "moved to \(response.fileURL.path), not \(target.path)")
        try checkOneMiBFile(target)
    }

    /// The upload sink answers with the length and SHA-256 of what it read.
    private func checkSink(_ response: DataResponse, length: Int, sha256: String) throws {
        try check(response.status.code == 200, "status \(response.status.code), expected 200")
        let object = try JSONSerialization.jsonObject(with: response.data) as? [String: Any]
        let received = (object?["length"] as? NSNumber)?.intValue
        try check(received == length, "the sink read \(received.map(String.init) ?? "nothing"), expected \(length) bytes")
        try check(object?["sha256"] as? String == sha256, "the sink's SHA-256 differs from what was sent")
    }
}
