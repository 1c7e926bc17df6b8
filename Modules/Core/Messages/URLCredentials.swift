import FoundationEssentials

/// The user name and password a URL carries (`https://user:password@host/`), which Courier sends as HTTP Basic, as
/// curl, Go's and Python's clients do: used by `Session.makeRequest` and the `courier` command.
package enum URLCredentials {
    /// The URL's percent-decoded user and password (empty when the URL has a user and no password), or `nil` when
    /// it names no user.
    package static func userAndPassword(in url: URL) -> (user: String, password: String)? {
        guard let user = url.user(percentEncoded: false) else { return nil }
        return (user, url.password(percentEncoded: false) ?? "")
    }

    /// `Basic base64(user:password)` for the URL's credentials, or `nil` when it names no user.
    package static func basicAuthorization(in url: URL) -> String? {
        userAndPassword(in: url).map { BasicCredentials.fieldValue(user: $0.user, password: $0.password) }
    }
}
