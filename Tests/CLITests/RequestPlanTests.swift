@testable import CourierCLI
import CourierCore
import Foundation
import HTTPTypes
import Testing

@Suite("Request line and plan")
struct RequestPlanTests {
    private func plan(
        _ arguments: [String],
        encoding: RequestPlan.BodyEncoding? = nil,
        authorization: RequestPlan.Authorization? = nil
    ) throws -> RequestPlan {
        try RequestPlan.build(line: RequestLine.parse(arguments), encoding: encoding, authorization: authorization)
    }

    private func body(_ plan: RequestPlan) -> String? {
        plan.body.map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Method and URL

    @Test func theMethodIsGETWithoutDataAndPOSTWithData() throws {
        #expect(try RequestLine.parse(["http://h/"]).method() == .get)
        #expect(try RequestLine.parse(["http://h/", "q==1", "X-A:b"]).method() == .get)
        #expect(try RequestLine.parse(["http://h/", "a=1"]).method() == .post)
        #expect(try RequestLine.parse(["http://h/", "a:=1"]).method() == .post)
    }

    @Test func anExplicitMethodIsCaseInsensitiveAndWins() throws {
        let line = try RequestLine.parse(["put", "http://h/", "a=1"])
        #expect(line.explicitMethod == "PUT")
        #expect(try line.method() == .put)
        #expect(try RequestLine.parse(["Get", "http://h/", "a=1"]).method() == .get)
        #expect(try RequestLine.parse(["PURGE", "http://h/"]).method().rawValue == "PURGE")
    }

    @Test func aLoneWordIsTheURLNotAMethod() throws {
        let line = try RequestLine.parse(["localhost"])
        #expect(line.explicitMethod == nil)
        #expect(line.url == "localhost")
        let error = try #require(throws: CLIError.self) { try line.target() }
        #expect(error.message == "malformed URL \"localhost\": a URL needs a scheme")
        #expect(error.hint == "write it in full, e.g. http://localhost")
    }

    @Test func noURLIsAnError() throws {
        let error = try #require(throws: CLIError.self) { try RequestLine.parse([]) }
        #expect(error.message == "no URL given")
    }

    @Test(arguments: [
        ("ftp://h/file", "unsupported URL scheme in \"ftp://h/file\": courier speaks http and https"),
        ("http://", "malformed URL \"http://\": it has no host"),
        ("example.com/get", "malformed URL \"example.com/get\": a URL needs a scheme"),
    ])
    func malformedURLsAreRefusedBeforeSending(url: String, message: String) throws {
        let error = try #require(throws: CLIError.self) { try RequestLine.target(url) }
        #expect(error.message == message)
        #expect(error.exitCode == 1)
    }

    // MARK: Query

    @Test func queryItemsFollowAFNetworkingsRulesAfterTheURLsQuery() throws {
        let built = try plan(["http://h/get?x=1", "b==2", "a==1", "tags[]==x", "tags[]==y", "q==a b&c", "user[name]==é"])
        #expect(built.request.path == "/get?x=1&a=1&b=2&q=a%20b%26c&tags%5B%5D=x&tags%5B%5D=y&user%5Bname%5D=%C3%A9")
        #expect(built.body == nil)
    }

    @Test func aRepeatedQueryNameIsSentOncePerValue() throws {
        let built = try plan(["http://h/get", "a==2", "a==1"])
        #expect(built.request.path == "/get?a=1&a=2")
    }

    // MARK: Bodies

    @Test func dataItemsBecomeAJSONObject() throws {
        let built = try plan(["http://h/post", "name=Ada", "n:=1", "user[role]=admin", "tags[]=a", "tags[]=b", "ok:=true"])
        #expect(built.request.method == .post)
        #expect(body(built) == #"{"n":1,"name":"Ada","ok":true,"tags":["a","b"],"user":{"role":"admin"}}"#)
        #expect(built.request.headerFields[.contentType] == "application/json")
        #expect(built.request.headerFields[.accept] == "application/json, */*;q=0.5")
    }

    @Test func formModeSendsAURLEncodedBody() throws {
        let built = try plan(["http://h/post", "name=Ada Lovelace", "user[name]=x", "tags[]=a"], encoding: .form)
        #expect(body(built) == "name=Ada%20Lovelace&tags%5B%5D=a&user%5Bname%5D=x")
        #expect(built.request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(built.request.headerFields[.accept] == "*/*")
    }

    @Test func anExplicitGETStillSendsItsDataAsABody() throws {
        let built = try plan(["GET", "http://h/anything", "a=1"])
        #expect(built.request.method == .get)
        #expect(built.request.path == "/anything")
        #expect(body(built) == #"{"a":"1"}"#)
    }

    @Test func withoutDataThereIsNoBody() throws {
        let built = try plan(["POST", "http://h/post"])
        #expect(built.body == nil)
        #expect(built.request.headerFields[.contentType] == nil)
        #expect(try plan(["http://h/"], encoding: .json).request.headerFields[.accept] == RequestPlan.jsonAccept)
    }

    @Test func rawJSONNeedsJSONMode() throws {
        let error = try #require(throws: CLIError.self) { try plan(["http://h/", "n:=1"], encoding: .form) }
        #expect(error.message == "item \"n:=1\": raw JSON (:=) needs JSON mode")
    }

    @Test func invalidRawJSONIsAnErrorBeforeSending() throws {
        let error = try #require(throws: CLIError.self) { try plan(["http://h/", "n:=[1,"]) }
        #expect(error.message == "item \"n:=[1,\": invalid JSON at line 1, column 4: the document ended where a value was expected")
    }

    // MARK: Headers

    @Test func headerItemsReplaceDefaultsByNameAndRepeat() throws {
        let built = try plan(["http://h/", "Accept:text/plain", "X-Tag:a", "X-Tag:b"])
        #expect(built.request.headerFields[values: .accept] == ["text/plain"])
        #expect(built.request.headerFields[values: HTTPField.Name("X-Tag")!] == ["a", "b"])
        #expect(built.request.headerFields[.userAgent] == "courier/\(CourierVersion.string)")
    }

    @Test func aHeaderValueWithCRLFIsRefused() throws {
        let error = try #require(throws: CLIError.self) { try plan(["http://h/", "X-A:a\r\nInjected: 1"]) }
        #expect(error.message == "header item \"X-A:a\r\nInjected: 1\": invalid header value: \"X-A\": the value contains CR, LF or NUL, which could inject headers")
    }

    @Test func anInvalidHeaderNameIsRefused() throws {
        let error = try #require(throws: CLIError.self) { try plan(["http://h/", "Bad Name:x"]) }
        #expect(error.message.hasPrefix("header item \"Bad Name:x\": invalid header name: \"Bad Name\""))
    }

    // MARK: Authorization

    @Test func basicAndBearerAuthorization() throws {
        let basic = try RequestPlan.Authorization.basic("alice:se:cret")
        #expect(basic == .basic(user: "alice", password: "se:cret"))
        #expect(basic.headerValue == "Basic YWxpY2U6c2U6Y3JldA==")
        #expect(RequestPlan.Authorization.bearer("t0k3n").headerValue == "Bearer t0k3n")
        let built = try plan(["http://h/"], authorization: basic)
        #expect(built.request.headerFields[.authorization] == "Basic YWxpY2U6c2U6Y3JldA==")
        #expect(throws: CLIError.self) { try RequestPlan.Authorization.basic("alice") }
    }

    @Test func anAuthorizationItemWinsOverTheOption() throws {
        let built = try plan(["http://h/", "Authorization:Token x"], authorization: .bearer("y"))
        #expect(built.request.headerFields[values: .authorization] == ["Token x"])
    }

    /// Credentials in the URL are sent as HTTP Basic, percent-decoded, as curl sends them; -a and --bearer win.
    @Test func credentialsInTheURLAreBasicAuthorization() throws {
        let built = try plan(["http://a%40da:p%3Aw@h/"])
        #expect(built.authorization == .basic(user: "a@da", password: "p:w"))
        #expect(built.request.headerFields[.authorization] == "Basic " + Data("a@da:p:w".utf8).base64EncodedString())
        #expect(built.request.authority == "h")
        #expect(try plan(["http://ada:x@h/"], authorization: .bearer("t")).request.headerFields[.authorization] == "Bearer t")
        #expect(try plan(["http://h/"]).request.headerFields[.authorization] == nil)
    }
}
