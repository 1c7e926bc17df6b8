import Foundation
import HTTPTypes

/// The positional arguments `[METHOD] URL [ITEM ...]` sorted out: which is the method, which the
/// URL, and what the method is when none is given.
struct RequestLine: Equatable {
    /// The method given, upper-cased; `nil` when it is to be inferred.
    var explicitMethod: String?
    /// The URL argument, as typed.
    var url: String
    /// The items, parsed.
    var items: [RequestItem]

    /// Splits the positional arguments. The first is the method when it is a bare word (letters
    /// only, so never a URL, which needs a scheme) and something follows it.
    ///
    /// - Throws: ``CLIError`` when no URL is given or an item does not parse.
    static func parse(_ arguments: [String]) throws(CLIError) -> RequestLine {
        var rest = arguments[...]
        var method: String?
        if let first = rest.first, rest.count >= 2, isMethodWord(first) {
            method = first.uppercased()
            rest = rest.dropFirst()
        }
        guard let url = rest.first else {
            throw CLIError("no URL given", hint: "usage: courier [OPTIONS] [METHOD] URL [ITEM ...]; see courier --help")
        }
        var items: [RequestItem] = []
        for argument in rest.dropFirst() {
            items.append(try RequestItem.parse(argument))
        }
        return RequestLine(explicitMethod: method, url: url, items: items)
    }

    /// True for a word that can only be a method: ASCII letters (and `-`, `_`), no `:` or `/`.
    static func isMethodWord(_ word: String) -> Bool {
        !word.isEmpty && word.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// The method to send: the one given, else POST when any item puts something in the body,
    /// else GET.
    ///
    /// - Throws: ``CLIError`` when the given method is not a valid token.
    func method() throws(CLIError) -> HTTPRequest.Method {
        guard let explicitMethod else {
            return items.contains(where: \.isBodyItem) ? .post : .get
        }
        guard let method = HTTPRequest.Method(explicitMethod) else {
            throw CLIError("\"\(explicitMethod)\" is not a valid HTTP method")
        }
        return method
    }

    /// The URL, checked: it must parse, have an `http` or `https` scheme and a host.
    ///
    /// - Throws: ``CLIError`` naming what is wrong; nothing has been sent then.
    func target() throws(CLIError) -> URL {
        try Self.target(url)
    }

    static func target(_ text: String) throws(CLIError) -> URL {
        guard text.contains("://") else {
            throw CLIError("malformed URL \"\(text)\": a URL needs a scheme", hint: "write it in full, e.g. http://\(text)")
        }
        guard let url = URL(string: text) else {
            throw CLIError("malformed URL \"\(text)\"")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CLIError("unsupported URL scheme in \"\(text)\": courier speaks http and https")
        }
        guard let host = url.host, !host.isEmpty else {
            throw CLIError("malformed URL \"\(text)\": it has no host")
        }
        return url
    }
}
