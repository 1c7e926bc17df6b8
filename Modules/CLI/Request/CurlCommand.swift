import CourierCore
import CourierCurl
import CourierMultipart
import CourierRequestSerialization
import Foundation
import HTTPTypes

/// `--curl`: the `curl` command line that sends the same request, shell-quoted so it can be
/// pasted into `sh`.
///
/// ```text
/// $ courier --curl PUT http://127.0.0.1:18080/put a==1 "msg=it's"
/// curl -X PUT 'http://127.0.0.1:18080/put?a=1' -H 'User-Agent: courier/0.1.0' … --data-raw '{"msg":"it'\''s"}' …
/// ```
struct CurlCommand {
    /// What the command line asked for besides the request itself.
    struct Options: Equatable {
        var httpVersion: CurlTransport.Configuration.HTTPVersion = .automatic
        var maximumRedirects = 10
        var timeout: Double?
        var connectTimeout: Double?
        var proxy: String?
        /// `--proxy-cacert`: the CA file an HTTPS proxy's own certificate is checked against.
        var proxyCAFile: String?
        var unixSocket: String?
        var caFile: String?
        var insecure = false
        var clientCertificate: String?
        var clientKey: String?
        var clientKeyPassword: String?
        /// `--pin-key` values; the `sha256/` ones become curl's `--pinnedpubkey` (which checks the leaf
        /// only, where courier accepts any certificate of the chain).
        var pinnedKeys: [String] = []
        var verbose = false
        var headersOnly = false
        var outputFile: String?
        var download = false
        var resume = false
    }

    var plan: RequestPlan
    var options: Options

    /// The words of the command, unquoted: the library's ``CurlCommandLine`` for the request, with the
    /// command line's own options around it.
    var words: [String] {
        let request = plan.request
        let isForm = plan.form.map { !$0.isEmpty } ?? false
        var line = CurlCommandLine(request: request, body: plan.body.map { Data($0) })
        line.hasExternalBody = isForm
        if case .basic? = plan.authorization { line.omitsAuthorization = true }
        var words = line.words
        var leading: [String] = []
        if options.verbose { leading.append("-v") }
        if options.headersOnly { leading.append("-i") }
        words.insert(contentsOf: leading, at: 1)
        if case .basic(let user, let password)? = plan.authorization,
           let url = words.firstIndex(of: request.url?.absoluteString ?? request.path ?? "/") {
            words.insert(contentsOf: ["-u", "\(user):\(password)"], at: url + 1)
        }
        if isForm {
            for field in plan.formFields {
                words += ["--form-string", "\(field.name)=\(field.value ?? "")"]
            }
            for file in plan.formFiles {
                // curl reads a quoted file name with backslash escapes.
                let quoted = file.path.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
                words += ["-F", "\(file.name)=@\"\(quoted)\";type=\(file.mimeType)"]
            }
        }
        if options.maximumRedirects > 0 {
            words += ["-L", "--max-redirs", String(options.maximumRedirects)]
        }
        switch options.httpVersion {
        case .automatic: break
        case .http1_1: words.append("--http1.1")
        case .http2: words.append(request.scheme?.lowercased() == "http" ? "--http2-prior-knowledge" : "--http2")
        }
        if let timeout = options.timeout { words += ["--max-time", Self.number(timeout)] }
        if let connectTimeout = options.connectTimeout { words += ["--connect-timeout", Self.number(connectTimeout)] }
        // --noproxy '': courier sends every request through its --proxy whatever no_proxy says; curl reads no_proxy.
        if let proxy = options.proxy { words += ["--proxy", proxy, "--noproxy", ""] }
        if let proxyCAFile = options.proxyCAFile { words += ["--proxy-cacert", proxyCAFile] }
        if let unixSocket = options.unixSocket { words += ["--unix-socket", unixSocket] }
        if let caFile = options.caFile { words += ["--cacert", caFile] }
        if options.insecure { words.append("-k") }
        let hashes = options.pinnedKeys.filter { $0.hasPrefix("sha256/") }.map { "sha256//" + $0.dropFirst("sha256/".count) }
        if !hashes.isEmpty { words += ["--pinnedpubkey", hashes.joined(separator: ";")] }
        if let certificate = options.clientCertificate { words += ["--cert", certificate] }
        if let key = options.clientKey { words += ["--key", key] }
        if let password = options.clientKeyPassword { words += ["--pass", password] }
        if let outputFile = options.outputFile {
            words += ["-o", outputFile]
        } else if options.download {
            // -J (the Content-Disposition name) cannot resume: curl refuses it with -C, and
            // courier -d -c names the file from the URL too.
            words += options.resume ? ["-O"] : ["-O", "-J"]
        }
        if options.resume { words += ["-C", "-"] }
        // courier decodes compressed bodies, except in files it writes (kept as sent, for -c).
        if options.outputFile == nil && !options.download { words.append("--compressed") }
        return words
    }

    /// The command, each word quoted for a POSIX shell where it needs it.
    var commandLine: String {
        words.map(Self.shellQuoted).joined(separator: " ")
    }

    /// `word` quoted for a POSIX shell (``CurlCommandLine/shellQuoted(_:)``).
    static func shellQuoted(_ word: String) -> String {
        CurlCommandLine.shellQuoted(word)
    }

    /// `2`, `0.5`: seconds as curl takes them.
    static func number(_ value: Double) -> String {
        value.rounded() == value && value.magnitude < 1e15 ? String(Int64(value)) : String(value)
    }
}
