@testable import CourierCurl
import HTTPTypes
import Testing

/// `RequestValidation.isPlainTarget` spares a valid target the full check; it must never pass one the full check
/// refuses, and should take the targets nearly every request has.
@Suite("Plain target")
struct PlainTargetTests {
    private let get = HTTPRequest(method: .get, scheme: "http", authority: "example.com", path: "/")

    private func fullCheckAccepts(_ authority: String, _ path: String) -> Bool {
        (try? RequestValidation.checkTargetRuleByRule(get, authority: authority, path: path)) != nil
    }

    /// Every authority of up to four bytes from the bytes the rules turn on, with paths of each kind.
    @Test func theShortcutPassesNothingTheFullCheckRefuses() {
        let alphabet = Array("a1:@[]/ 9#\\?".utf8) + [0x7F, 0x09]
        var authorities: [[UInt8]] = [[]]
        var frontier: [[UInt8]] = [[]]
        for _ in 1...4 {
            frontier = frontier.flatMap { prefix in alphabet.map { prefix + [$0] } }
            authorities += frontier
        }
        let paths = ["/", "/a?b=1", "*", "", "/#x", "/a b", "a/", "/\u{7F}"]
        var plain = 0
        for bytes in authorities {
            let authority = String(decoding: bytes, as: UTF8.self)
            for path in paths where RequestValidation.isPlainTarget(authority: authority, path: path) {
                plain += 1
                #expect(fullCheckAccepts(authority, path), "the shortcut passed \(authority) \(path)")
            }
        }
        #expect(plain > 500, "the shortcut should take the plain targets of this set (960 of them)")
    }

    /// Ports decide alike both ways: every port of up to six digits.
    @Test func portsDecideAsTheFullCheckDoes() {
        for port in (0...99_999).map(String.init) + ["00000", "000000", "100000", "65536", "065535"] {
            let authority = "h:" + port
            #expect(RequestValidation.isPlainTarget(authority: authority, path: "/") == fullCheckAccepts(authority, "/"),
                    "port \(port)")
        }
    }

    @Test func commonTargetsTakeTheShortcutAndOthersTheFullCheck() {
        for (authority, path) in [("example.com", "/"), ("127.0.0.1:8080", "/json?x=1"), ("h:65535", "/a/b"), ("h:", "/"),
                                  ("bücher.example", "/")] {
            #expect(RequestValidation.isPlainTarget(authority: authority, path: path), "\(authority) \(path)")
        }
        for (authority, path) in [("[::1]:80", "/"), ("u@h", "/"), ("h:1:2", "/"), ("", "/"), (":80", "/"),
                                  ("h:65536", "/"), ("h", "x"), ("h", "/a b"), ("h", "*"), ("h", "/#")] {
            #expect(!RequestValidation.isPlainTarget(authority: authority, path: path), "\(authority) \(path)")
        }
    }
}
