import FoundationEssentials
import HTTPTypes

/// The `curl` command line that sends the same request: for a bug report, a log line, or trying a
/// request by hand (Alamofire's `cURLDescription()`). The `courier --curl` option prints one.
///
/// ```swift
/// var request = HTTPRequest(method: .post, scheme: "https", authority: "api.test", path: "/users")
/// request.headerFields[.contentType] = "application/json"
/// request.headerFields[.authorization] = "Bearer s3cret"
/// let command = CurlCommandLine(request: request, body: Data(#"{"name":"Ada"}"#.utf8), redactsCredentials: true)
/// print(command)
/// // curl https://api.test/users -H 'Content-Type: application/json' -H 'Authorization: REDACTED' --data-raw '{"name":"Ada"}'
/// ```
///
/// Each word is quoted for a POSIX shell where it needs it, so the line pastes into `sh`. A body
/// that is not UTF-8 is written with bash's `$'…'` quoting, byte for byte.
public struct CurlCommandLine: Sendable, CustomStringConvertible {
    /// The request head (the URL comes from its scheme, authority and path).
    public var request: HTTPRequest
    /// The body, when there is one.
    public var body: Data?
    /// When true, the values of `Authorization`, `Proxy-Authorization` and `Cookie` and a password
    /// in the URL are written `REDACTED`: the line can go in a log.
    public var redactsCredentials: Bool

    /// A request whose body is sent some other way (the CLI's `-F` for a form): the method and the
    /// framing headers are written as for a body.
    package var hasExternalBody = false
    /// Leaves `Authorization` out (the CLI writes `-u` for Basic credentials).
    package var omitsAuthorization = false

    /// The command line for `request` with `body`.
    public init(request: HTTPRequest, body: Data? = nil, redactsCredentials: Bool = false) {
        self.request = request
        self.body = body
        self.redactsCredentials = redactsCredentials
    }

    /// The words of the command, unquoted: `curl`, the method when curl would not infer it, the
    /// URL, a `-H` per header field in order, and `--data-raw` (or `--data-binary`) with the body.
    public var words: [String] {
        let hasBody = body != nil || hasExternalBody
        var words = ["curl"]
        switch request.method {
        case .get where !hasBody: break
        case .head where !hasBody: words.append("-I")
        case .post where hasBody: break  // --data-raw and -F imply POST
        default: words += ["-X", request.method.rawValue]
        }
        words.append(url)
        for field in request.headerFields {
            if omitsAuthorization, field.name == .authorization { continue }
            // curl -F writes its own boundary and length.
            if hasExternalBody, field.name == .contentType || field.name == .contentLength { continue }
            let value = redactsCredentials && Self.credentialFields.contains(field.name) ? "REDACTED" : field.value
            // An empty value is written `Name;`, curl's way to send a field with no value.
            words += ["-H", value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(value)"]
        }
        if let body {
            if let text = String(validating: body, as: UTF8.self) {
                words += ["--data-raw", text]
            } else {
                words += ["--data-binary", String(decoding: body, as: UTF8.self)]
            }
        }
        return words
    }

    /// The command, each word quoted for a POSIX shell where it needs it.
    public var description: String {
        var quoted = words.map(Self.shellQuoted)
        // A body that is not UTF-8 cannot be a single-quoted word: bash's $'…' holds any byte.
        if let body, String(validating: body, as: UTF8.self) == nil {
            quoted[quoted.count - 1] = Self.bashQuoted(body)
        }
        return quoted.joined(separator: " ")
    }

    /// `word` as a POSIX shell reads it back: unchanged when it holds only safe characters,
    /// otherwise in single quotes, with each `'` written `'\''`.
    public static func shellQuoted(_ word: String) -> String {
        let safe = !word.isEmpty && word.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "-_./:,+@%=".utf8.contains(byte)
            }
        }
        if safe { return word }
        return "'" + word.replacing("'", with: #"'\''"#) + "'"
    }

    private static let credentialFields: Set<HTTPField.Name> = [.authorization, .proxyAuthorization, .cookie]

    private var url: String {
        var text = request.url?.absoluteString ?? request.path ?? "/"
        if redactsCredentials, let authority = request.authority, let at = authority.lastIndex(of: "@"),
           let colon = authority[..<at].firstIndex(of: ":") {
            let redacted = authority[..<colon] + ":REDACTED" + authority[at...]
            text = text.replacing(authority, with: redacted, maxReplacements: 1)
        }
        return text
    }

    /// Bytes as bash's ANSI-C quoting: printable ASCII as itself (`'` and `\` escaped), the rest `\xHH`.
    private static func bashQuoted(_ bytes: Data) -> String {
        var quoted = "$'"
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\\"): quoted += "\\" + String(UnicodeScalar(byte))
            case 0x20..<0x7F: quoted.unicodeScalars.append(UnicodeScalar(byte))
            default: quoted += "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16)
            }
        }
        return quoted + "'"
    }
}
