import CourierCore
import Foundation
import HTTPTypes

/// The exercises that read a body: small JSON, compressed and chunked bodies, redirects, error statuses.
/// Each uses another of Courier's calling styles (`data(for:)`, a data task, `send` with a streamed
/// body, the REST conveniences), as different parts of an application would.
extension SoakClient {
    func json(_ plan: inout RequestPlan) async throws {
        // One call in ten on a session of its own: an application that makes sessions as it goes
        // must not leave anything behind when it drops them.
        let onItsOwn = plan.draw(0...9) == 0
        let session = onItsOwn ? Session(configuration: configuration, transport: transport) : session
        let response = try await session.data(for: try request(.get, servers.nginx + "/json"))
        try check(response.status.code == 200, "status \(response.status.code), expected 200")
        try check(response.data == servers.smallJSON, "\(response.data.count) bytes that are not small.json")
    }

    func jsonTLS(_ plan: inout RequestPlan) async throws {
        let response = try await session.dataTask(with: try request(.get, servers.tls + "/json")).response
        try check(response.status.code == 200, "status \(response.status.code), expected 200")
        try check(response.data == servers.smallJSON, "\(response.data.count) bytes that are not small.json")
        try check(response.metrics?.httpVersion == "HTTP/2", "spoke \(response.metrics?.httpVersion ?? "nothing"), expected HTTP/2")
    }

    func gzip(_ plan: inout RequestPlan) async throws {
        // 24 bodies in all, so the compression server generates each once, during warm-up.
        let query = compressedQuery(
            encoding: "gzip", size: plan.pick(["4k", "64k", "512k"]), seed: plan.draw(0...3), ratio: plan.pick([1, 18])
        )
        let response = try await session.dataTask(with: try request(.get, servers.nginx + query)).response
        try check(response.head.headerFields[.contentEncoding] == "gzip", "no Content-Encoding: gzip")
        try checkDecoded(response.data, head: response.head)
    }

    func chunked(_ plan: inout RequestPlan) async throws {
        // Straight from the compression server: through nginx the chunks would be nginx's 4 KiB ones.
        let query = compressedQuery(
            encoding: plan.pick(["identity", "gzip", "br", "zstd"]), size: plan.pick(["1k", "32k", "300k"]),
            seed: plan.draw(0...3), framing: "chunked"
        )
        let response = try await session.send(try request(.get, servers.compression + query))
        try check(response.head.headerFields[.contentLength] == nil, "a Content-Length on a chunked body")
        var data = Data()
        for try await chunk in response.body { data.append(contentsOf: chunk) }
        try checkDecoded(data, head: response.head)
    }

    func redirect(_ plan: inout RequestPlan) async throws {
        let hops = plan.draw(1...3)
        let response = try await session.dataTask(with: try request(.get, servers.httpbin + "/redirect/\(hops)")).response
        try check(response.status.code == 200, "status \(response.status.code) after the redirects, expected 200")
        try check(response.history.count == hops, "\(response.history.count) hops followed, expected \(hops)")
        try check(response.request.path == "/get", "ended at \(response.request.path ?? "nothing"), expected /get")
        let object = try JSONSerialization.jsonObject(with: response.data) as? [String: Any]
        try check((object?["url"] as? String)?.hasSuffix("/get") == true, "httpbin's answer does not name /get")
    }

    func clientError(_ plan: inout RequestPlan) async throws {
        if plan.draw(0...3) == 0 {
            // nginx's own 404, with an HTML body, for a file that is not there.
            let response = try await session.data(for: try request(.get, servers.nginx + "/files/missing-\(plan.draw(0...999)).bin"))
            try check(response.status.code == 404, "status \(response.status.code), expected 404")
            return
        }
        try await status(plan.pick([400, 403, 404, 409, 410, 422]))
    }

    func serverError(_ plan: inout RequestPlan) async throws {
        try await status(plan.pick([500, 502, 503, 504]))
    }

    /// httpbin's `/status/N`: Courier returns it as a response (validation is the serializer's job).
    private func status(_ code: Int) async throws {
        let response = try await session.get(servers.httpbin + "/status/\(code)").response
        try check(response.status.code == code, "status \(response.status.code), expected \(code)")
    }
}
