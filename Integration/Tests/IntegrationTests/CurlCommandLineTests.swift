import CourierCore
import CourierCurl
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// `CurlCommandLine` run by the real `curl` (through `sh`, or `bash` for a binary body) against httpbin's
/// `/anything`, which echoes the request: the line must send what Courier sends (issue 13, part 6).
@Suite("curl command lines")
struct CurlCommandLineTests {
    /// httpbin's echo of the request `command` sends.
    private func echo(of command: CurlCommandLine, shell: String = "/bin/sh") async throws -> [String: Any] {
        let (status, data) = try await runProcess(shell, ["-c", command.description + " --silent --show-error --max-time 10"])
        #expect(status == 0, "\(command)")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(command)")
    }

    /// A JSON value as text with sorted keys, to compare two echoes.
    private func canonical(_ value: Any?) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: [value ?? NSNull()], options: [.sortedKeys]), as: UTF8.self)
    }

    private func courierEcho(_ request: HTTPRequest, body: Data?) async throws -> [String: Any] {
        let response = try await session().data(for: request, body: body.map { Body($0) })
        return try json(response)
    }

    @Test(arguments: [
        (HTTPRequest.Method.get, nil as String?), (.head, nil), (.delete, nil), (.post, #"{"name":"it's \"Ada\""}"#),
        (.put, "a=1&b=two words"), (.patch, "ünïcode ✓"), (.post, nil), (.get, "a body on a GET"),
    ])
    func sendsWhatCourierSends(method: HTTPRequest.Method, body: String?) async throws {
        let url = try #require(URL(string: Servers.httpbin + "/anything/it's%20here?q=a%20b&r=1"))
        var request = HTTPRequest(url: url)
        request.method = method
        request.headerFields[.accept] = "application/json"
        request.headerFields[HTTPField.Name("X-Quote")!] = #"say "hi" & $HOME `x`"#
        request.headerFields[HTTPField.Name("X-Empty")!] = ""
        if body != nil { request.headerFields[.contentType] = "text/plain; charset=utf-8" }
        let command = CurlCommandLine(request: request, body: body.map { Data($0.utf8) })
        guard method != .head else {
            // HEAD has no body to echo: curl -I must still reach the server and succeed.
            let (_, output) = try await runProcess("/bin/sh", ["-c", command.description + " --silent --show-error --max-time 10 -o /dev/null -w '%{http_code}'"])
            #expect(String(decoding: output, as: UTF8.self) == "200")
            return
        }
        let byCurl = try await echo(of: command)
        let byCourier = try await courierEcho(request, body: body.map { Data($0.utf8) })
        for key in ["method", "url", "args", "data"] {
            #expect(try canonical(byCurl[key]) == canonical(byCourier[key]), "\(key) for \(command)")
        }
        let curlHeaders = try #require(byCurl["headers"] as? [String: String])
        let courierHeaders = try #require(byCourier["headers"] as? [String: String])
        for name in ["Accept", "X-Quote", "X-Empty", "Content-Type"] {
            #expect(curlHeaders[name] == courierHeaders[name], "\(name) for \(command)")
        }
    }

    @Test func aBinaryBodyArrivesByteForByte() async throws {
        var request = HTTPRequest(url: try #require(URL(string: Servers.httpbin + "/anything")))
        request.method = .put
        request.headerFields[.contentType] = "application/octet-stream"
        let bytes = Data([0x41, 0xFF, 0x27, 0x5C, 0x0A, 0xC3, 0x80, 0x22, 0x24])
        let byCurl = try await echo(of: CurlCommandLine(request: request, body: bytes), shell: "/bin/bash")
        let byCourier = try await courierEcho(request, body: bytes)
        // httpbin reports a body that is not UTF-8 as a base64 data URL.
        #expect(byCurl["data"] as? String == byCourier["data"] as? String)
        #expect((byCurl["data"] as? String)?.hasPrefix("data:application/octet-stream;base64,") == true)
    }

    @Test func aRedactedLineSendsNoSecret() async throws {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/")
        request.headerFields[.authorization] = "Bearer s3cret"
        request.headerFields[.cookie] = "id=s3cret"
        #expect(!CurlCommandLine(request: request, redactsCredentials: true).description.contains("s3cret"))
    }
}
