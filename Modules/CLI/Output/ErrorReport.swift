import CourierCore
import CourierSecurity
import Foundation
import HTTPTypes

/// Turns any error `courier` ends with into its one-line report, `courier: error: <what
/// happened>`, and a hint line where one helps.
///
/// Messages quote what the server sent (a malformed status line, a `Location`, a
/// `Content-Range`, a certificate's names) and URLs, so for a terminal they are escaped
/// (``TerminalText``): `courier: error: GET http://h/: invalid status line: HTTP/1.1 200 \x1b[2J`.
enum ErrorReport {
    /// The lines to print on stderr, each without its newline; `terminal` when stderr is one.
    static func lines(for error: any Error, terminal: Bool) -> [String] {
        let (message, hint) = describe(error)
        let shown: (String) -> String = { terminal ? TerminalText.escaped(oneLine($0)) : oneLine($0) }
        var lines = ["courier: error: " + shown(message)]
        if let hint { lines.append("courier: hint: " + shown(hint)) }
        return lines
    }

    /// The message and hint for `error`.
    static func describe(_ error: any Error) -> (message: String, hint: String?) {
        switch error {
        case let error as CLIError:
            return (error.message, error.hint)
        case let error as CourierError:
            return describe(error)
        default:
            return ("\(error)", nil)
        }
    }

    /// e.g. `GET http://127.0.0.1:1/: could not connect: Couldn't connect to server (code 7)`.
    static func describe(_ error: CourierError) -> (message: String, hint: String?) {
        var target = ""
        if let request = error.request {
            target = "\(request.method) \(request.url?.absoluteString ?? request.path ?? ""): "
        }
        if error.isCancellation {
            return (target + "cancelled", nil)
        }
        let reason = String(describing: error.underlyingError)
        var hint: String?
        if error.isTimeout {
            hint = "allow more time with --timeout SECONDS (whole exchange) or --connect-timeout SECONDS"
        } else if let redirect = error.underlyingError as? RedirectError, redirect.reason == .tooManyRedirects {
            hint = "allow more with --max-redirects N, or see each hop with -v --max-redirects 0"
        } else if let trust = error.underlyingError as? TrustError {
            hint = trustHint(trust)
        } else if let transport = error.underlyingError as? TransportError, transport.code == .tlsFailure {
            hint = "to trust a private certificate authority, pass its PEM file with --cacert FILE"
        } else if let transport = error.underlyingError as? TransportError, transport.code == .proxyRefused,
                  transport.message.hasSuffix(" 407") {
            hint = "the proxy asks for credentials: give them, or check them, in its URL: --proxy http://USER:PASSWORD@HOST:PORT"
        } else if let transport = error.underlyingError as? TransportError, transport.code == .proxyRefused,
                  transport.message.contains("rejected by the SOCKS") || transport.message.contains("No authentication method") {
            // libcurl 7.88's words for a SOCKS5 proxy that refused the credentials, or wanted some.
            hint = "the SOCKS proxy refused the credentials: give them, or check them, in its URL: --proxy socks5h://USER:PASSWORD@HOST:PORT"
        }
        return (target + reason, hint)
    }

    /// The server chain's pins, so a pin can be copied from the error, and what to do.
    static func trustHint(_ error: TrustError) -> String? {
        guard let chain = error.serverTrust?.certificateChain, !chain.isEmpty else { return nil }
        let pins = SecurityPolicy.pinDescription(ofChain: chain)
        if error.reason.contains("is pinned") {
            return "to trust this server, pin one of the chain's keys listed above with --pin-key sha256/…"
        }
        return "the server's chain pins are \(pins); trust its CA with --cacert FILE, or pin a key with --pin-key sha256/… (with --insecure for a private CA)"
    }

    /// `text` with line breaks turned into spaces, so a report stays on its line.
    static func oneLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
