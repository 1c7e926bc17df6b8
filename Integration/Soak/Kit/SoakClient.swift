import CourierCore
import CourierCurl
import Foundation
import HTTPTypes

/// Courier as an application uses it, one shared transport and session, running each soak request and
/// judging its outcome. Every exercise either returns (the outcome was right) or throws (it was not);
/// ``run(_:)`` turns that into a failure message.
public final class SoakClient: Sendable {
    public let servers: SoakServers
    let transport: CurlTransport
    let configuration: SessionConfiguration
    let session: Session
    /// Where downloads land before they are checked and deleted.
    let scratch: URL

    /// A client with its own transport; `scratch` must exist.
    public init(servers: SoakServers, scratch: URL) throws {
        self.servers = servers
        self.scratch = scratch
        var transportConfiguration = CurlTransport.Configuration()
        transportConfiguration.certificateAuthorityFile = servers.caFile
        transport = try CurlTransport(configuration: transportConfiguration)
        // A total limit per request, so no transfer can outlive the run's own limit unnoticed; far
        // above what any exercise needs (a 1 MiB transfer held suspended for 40 ms).
        configuration = SessionConfiguration(timeouts: Timeouts(request: .seconds(120)))
        session = Session(configuration: configuration, transport: transport)
    }

    /// Runs request `plan` and returns nil when its outcome was right, otherwise what was wrong.
    public func run(_ plan: RequestPlan) async -> String? {
        var plan = plan
        do {
            switch plan.kind {
            case .json: try await json(&plan)
            case .jsonTLS: try await jsonTLS(&plan)
            case .gzip: try await gzip(&plan)
            case .chunked: try await chunked(&plan)
            case .redirect: try await redirect(&plan)
            case .clientError: try await clientError(&plan)
            case .serverError: try await serverError(&plan)
            case .uploadSmall: try await uploadSmall(&plan)
            case .uploadLarge: try await uploadLarge(&plan)
            case .download: try await download(&plan)
            case .cancel: try await cancel(&plan)
            case .suspendResume: try await suspendResume(&plan)
            }
            return nil
        } catch {
            return "request \(plan.index) (\(plan.kind.rawValue)): \(error)"
        }
    }

    /// Partial files the session left in Courier's download scratch directory (`courier-<uid>` in the temporary
    /// directory): a cancelled download must remove its `.part` file. When no download has made the directory yet,
    /// there is nothing to find; when downloads ran and the directory is missing, the check could not look, and
    /// says so rather than pass.
    public func leftoverPartFiles(downloadsRan: Bool) -> [String] {
        let directory = FileManager.default.temporaryDirectory.appending(path: "courier-\(geteuid())").path(percentEncoded: false)
        // The names are `download-<pid>-<session>-<task>-<random>.part`; the directory outlives processes.
        let prefix = "download-\(getpid())-\(session.id)-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            return downloadsRan ? ["\(directory) is missing: the download scratch directory moved, and this check cannot see partial files"] : []
        }
        return names.filter { $0.hasPrefix(prefix) }.map { directory + "/" + $0 }
    }

    /// Stops the transport: every connection closed and handle freed before the program exits.
    public func shutdown() async {
        await transport.shutdown()
    }

    // MARK: Shared by the exercises

    func request(_ method: HTTPRequest.Method, _ url: String, headers: HTTPFields = [:]) throws -> HTTPRequest {
        try session.makeRequest(method, url, headers: headers)
    }

    /// A compression-server query for a body of `size` decoded bytes.
    func compressedQuery(encoding: String, size: String, seed: Int, ratio: Int = 1, framing: String = "length", delayMilliseconds: Int = 0) -> String {
        var query = "/compressed?encoding=\(encoding)&size=\(size)&ratio=\(ratio)&framing=\(framing)&seed=\(seed)"
        if delayMilliseconds > 0 { query += "&delay_ms=\(delayMilliseconds)" }
        return query
    }

    /// Checks decoded bytes against the compression server's `X-Decoded-Length` and `X-Decoded-SHA256`.
    func checkDecoded(_ data: Data, head: HTTPResponse) throws {
        try check(head.status.code == 200, "status \(head.status.code), expected 200")
        let length = HTTPField.Name("X-Decoded-Length").flatMap { head.headerFields[$0] }
        let hash = HTTPField.Name("X-Decoded-SHA256").flatMap { head.headerFields[$0] }
        try check(length == String(data.count), "\(data.count) decoded bytes, the server sent \(length ?? "no length")")
        try check(hash == sha256Hex(data), "the decoded bytes' SHA-256 differs from the server's")
    }

    /// Checks a downloaded `1m.bin` and deletes it.
    func checkOneMiBFile(_ url: URL) throws {
        defer { try? FileManager.default.removeItem(at: url) }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw WrongOutcome("the downloaded file \(url.path) is missing")
        }
        try check(data.count == 1 << 20, "downloaded \(data.count) bytes, expected 1048576")
        try check(sha256Hex(data) == servers.oneMiBSHA256, "the downloaded file's SHA-256 differs from SHA256SUMS")
    }

    /// A file name in the scratch directory for request `index`.
    func scratchFile(_ index: Int) -> URL {
        scratch.appendingPathComponent("soak-\(index).bin")
    }
}

/// A request ended otherwise than it should have.
struct WrongOutcome: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Throws ``WrongOutcome`` with `message` unless `condition` holds.
func check(_ condition: Bool, _ message: @autoclosure () -> String) throws {
    if !condition { throw WrongOutcome(message()) }
}
