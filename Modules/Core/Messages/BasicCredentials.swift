import FoundationEssentials

/// HTTP Basic credentials (RFC 7617): `Basic` and the base64 of `user:password`. Built from base64 text, so no input
/// can inject a header. The one spelling of it for the challenge interceptor, the request serializer's helper, URL
/// credentials and the `courier` command.
package enum BasicCredentials {
    package static func fieldValue(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }
}
