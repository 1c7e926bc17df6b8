@testable import CourierCLI
import CourierCookies
import Foundation
import HTTPTypes
import Testing

/// `--session NAME`: where a session lives, which names are refused, and what a run keeps.
@Suite("Sessions")
struct SessionStoreTests {
    @Test func aNamedSessionLivesUnderTheConfigurationDirectoryPerHost() throws {
        let xdg = try SessionStore.locate(name: "work", authority: "127.0.0.1:18080", environment: ["XDG_CONFIG_HOME": "/x/config", "HOME": "/home/ada"])
        #expect(xdg.directory == "/x/config/courier/sessions/127.0.0.1_18080/work")
        let home = try SessionStore.locate(name: "work", authority: "API.example.com", environment: ["HOME": "/home/ada"])
        #expect(home.directory == "/home/ada/.config/courier/sessions/api.example.com/work")
        let v6 = try SessionStore.locate(name: "a", authority: "[::1]:8080", environment: ["HOME": "/h"])
        #expect(v6.directory == "/h/.config/courier/sessions/___1__8080/a")
        #expect(try SessionStore.locate(name: "./mine", authority: "h", environment: [:]).directory == "./mine")
    }

    @Test(arguments: ["", "..", ".", "a b", "a;b", "ünï", String(repeating: "x", count: 65)])
    func badNamesAreRefused(name: String) {
        #expect(throws: CLIError.self) { try SessionStore.locate(name: name, authority: "h", environment: ["HOME": "/h"]) }
    }

    @Test func aSessionKeepsCookiesAndAuthorizationPrivately() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-session-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SessionStore(directory: directory + "/s")
        let origin = "http://127.0.0.1:18080"
        #expect(try store.savedAuthorization(for: origin) == nil)
        #expect(try store.loadJar().allCookies.isEmpty)
        let jar = CookieJar()
        jar.store(setCookieFields: ["sid=1"], for: URL(string: "http://127.0.0.1:18080/")!)
        try store.save(jar: jar, authorization: "Basic YWRhOnMzY3JldA==", origin: origin)
        #expect(try store.savedAuthorization(for: origin) == "Basic YWRhOnMzY3JldA==")
        #expect(try store.loadJar().allCookies.map(\.name) == ["sid"])
        for (path, mode) in [(store.cookieFile, 0o600), (store.authorizationFile, 0o600), (store.directory, 0o700)] {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(path)")
        }
    }

    /// The authorization goes only to the origin it was given for: not to the same host over another scheme (a named
    /// session is per host and port only) or port, nor to another host (a directory session serves every host); a file
    /// an older `courier` wrote, the value without its origin, is sent nowhere.
    @Test func theAuthorizationGoesOnlyToItsOrigin() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-session-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = SessionStore(directory: directory + "/s")
        let origin = try #require(SessionStore.origin(of: HTTPRequest(url: URL(string: "https://API.example.com/a?b")!)))
        #expect(origin == "https://api.example.com:443")
        try store.save(jar: CookieJar(), authorization: "Bearer t", origin: origin)
        for url in ["https://api.example.com:443/x", "HTTPS://api.EXAMPLE.com/"] {
            let same = try #require(SessionStore.origin(of: HTTPRequest(url: URL(string: url)!)))
            #expect(try store.savedAuthorization(for: same) == "Bearer t", "\(url)")
        }
        for url in ["http://api.example.com/x", "https://api.example.com:8443/", "https://evil.example/", "https://example.com/"] {
            let other = try #require(SessionStore.origin(of: HTTPRequest(url: URL(string: url)!)))
            #expect(try store.savedAuthorization(for: other) == nil, "\(url)")
        }
        #expect(SessionStore.origin(of: HTTPRequest(url: URL(string: "http://[::1]:8080/")!)) == "http://[::1]:8080")
        try Data("Bearer t\n".utf8).write(to: URL(fileURLWithPath: store.authorizationFile))
        #expect(try store.savedAuthorization(for: origin) == nil)
    }
}
