import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

/// Credentials in a URL become HTTP Basic in `Session.makeRequest`, as curl sends them.
@Suite struct URLCredentialsTests {
    private func session(base: String? = nil, headers: HTTPFields = [:]) -> Session {
        var configuration = SessionConfiguration(baseURL: base.flatMap { URL(string: $0) })
        configuration.headers = headers
        return Session(configuration: configuration, transport: MockTransport { _ in .text("") })
    }

    private func basic(_ credentials: String) -> String { "Basic " + Data(credentials.utf8).base64EncodedString() }

    @Test func credentialsInThePathAreSentAsBasic() throws {
        let request = try session().makeRequest(.get, "https://ada:s3cret@api.test/me")
        #expect(request.headerFields[.authorization] == basic("ada:s3cret"))
        #expect(request.authority == "api.test", "the authority carries no credentials")
    }

    @Test func credentialsArePercentDecoded() throws {
        let request = try session().makeRequest(.get, "https://a%40da:p%3Aw%20d@api.test/me")
        #expect(request.headerFields[.authorization] == basic("a@da:p:w d"))
    }

    @Test func aUserWithoutAPasswordHasAnEmptyOne() throws {
        #expect(try session().makeRequest(.get, "https://ada@api.test/").headerFields[.authorization] == basic("ada:"))
    }

    @Test func theBaseURLsCredentialsGoWithRelativePathsOnly() throws {
        let s = session(base: "https://ada:s3cret@api.test/v1/")
        #expect(try s.makeRequest(.get, "me").headerFields[.authorization] == basic("ada:s3cret"))
        #expect(try s.makeRequest(.get, "https://other.test/x").headerFields[.authorization] == nil, "another host got the base URL's credentials")
    }

    @Test func anAuthorizationFieldWins() throws {
        let given = try session().makeRequest(.get, "https://ada:s3cret@api.test/", headers: [.authorization: "Bearer t"])
        #expect(given.headerFields[.authorization] == "Bearer t")
        let sessionWide = try session(headers: [.authorization: "Bearer s"]).makeRequest(.get, "https://ada:s3cret@api.test/")
        #expect(sessionWide.headerFields[.authorization] == "Bearer s")
    }

    @Test func aURLWithoutCredentialsGetsNoAuthorization() throws {
        #expect(try session().makeRequest(.get, "https://api.test/me").headerFields[.authorization] == nil)
    }
}
