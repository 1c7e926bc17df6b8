import CourierCookies
import CourierCore
import Foundation
import HTTPTypes

/// `--session NAME`: the cookies and the authorization of a host kept between runs, as httpie's sessions keep
/// them. A session is a directory, `$XDG_CONFIG_HOME/courier/sessions/HOST_PORT/NAME/` (or `~/.config/…`), made
/// with mode 0700, holding `cookies.txt` (curl's Netscape format, so `curl -b` and `-c` use it too) and
/// `authorization` (the `Authorization` value last given, after the origin it was given for), each with mode 0600. A
/// NAME holding `/` is the directory itself, whatever the host.
///
/// The authorization goes only to the origin it was given for (scheme, host and port), as the redirect stage keeps
/// credentials to one origin: a named session is per host and port but not per scheme (`http://h` and `https://h`
/// share one), and a directory session serves every host, so a value kept without its origin went in cleartext to
/// `http://` the same host, or to any other host the session was used with.
struct SessionStore: Equatable {
    /// The session's directory.
    let directory: String

    var cookieFile: String { directory + "/cookies.txt" }
    var authorizationFile: String { directory + "/authorization" }

    /// The session `name` for the host of `authority` (`host:port`), under the user's configuration directory.
    static func locate(name: String, authority: String?, environment: [String: String]) throws(CLIError) -> SessionStore {
        if name.contains("/") { return SessionStore(directory: name) }
        guard !name.isEmpty, name.count <= 64, name != ".", name != "..",
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") }) else {
            throw CLIError("--session takes a name of letters, digits, '.', '-' and '_' (at most 64), or a directory path",
                           hint: "e.g. --session work, or --session ./my-session")
        }
        let base: String
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            base = config
        } else if let home = environment["HOME"], !home.isEmpty {
            base = home + "/.config"
        } else {
            throw CLIError("--session needs HOME or XDG_CONFIG_HOME to know where sessions live", hint: "or give a directory: --session ./NAME")
        }
        // `host:port` as a directory name; an IPv6 address keeps its colons out too.
        let host = (authority ?? "unknown").lowercased().map { $0 == ":" || $0 == "/" || $0 == "[" || $0 == "]" ? "_" : $0 }
        return SessionStore(directory: "\(base)/courier/sessions/\(String(host))/\(name)")
    }

    /// The session's cookies: an empty jar for a new session.
    func loadJar() throws(CLIError) -> CookieJar {
        guard FileManager.default.fileExists(atPath: cookieFile) else { return CookieJar() }
        do {
            return try CookieJar(netscapeFile: cookieFile)
        } catch {
            throw CLIError("session: \(error)")
        }
    }

    /// The origin an authorization is kept for: scheme, host and port, the scheme's default port filled in
    /// (`https://example.com:443`); nil for a request without a URL.
    static func origin(of request: HTTPRequest) -> String? {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        let bracketed = host.contains(":") ? "[\(host)]" : host   // an IPv6 address, as a URL writes it
        return "\(scheme)://\(bracketed):\(url.port ?? (scheme == "https" ? 443 : 80))"
    }

    /// The `Authorization` value the session keeps for `origin`, if any: none for another origin, nor from a file that
    /// names no origin (an older `courier` wrote the value alone).
    func savedAuthorization(for origin: String) throws(CLIError) -> String? {
        guard FileManager.default.fileExists(atPath: authorizationFile) else { return nil }
        guard let data = FileManager.default.contents(atPath: authorizationFile),
              let text = String(data: data, encoding: .utf8) else {
            throw CLIError("session: cannot read \(authorizationFile)")
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines[0] == origin, !lines[1].isEmpty else { return nil }
        return String(lines[1])
    }

    /// Keeps `jar`'s cookies and `authorization` (when there is one) for `origin`, for the next run.
    func save(jar: CookieJar, authorization: String?, origin: String?) throws(CLIError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try jar.write(netscapeFile: cookieFile)
            if let authorization, let origin {
                try PrivateFile.replace(authorizationFile, with: Data((origin + "\n" + authorization + "\n").utf8))
            }
        } catch {
            throw CLIError("session: cannot keep the session in \(directory): \(error)")
        }
    }
}
