import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Redirects")
struct RedirectTests {
    /// Redirects `/start` with `status` to `/target`, which echoes method and body.
    func redirecting(_ status: Int, location: String = "/target") -> MockTransport {
        MockTransport { request in
            if request.pathWithoutQuery == "/start" {
                return .redirect(HTTPResponse.Status(code: status), to: location)
            }
            return .text("\(request.method) \(request.text ?? "-")")
        }
    }

    @Test(arguments: [
        (301, HTTPRequest.Method.post, "GET -"), (302, .post, "GET -"), (303, .post, "GET -"),
        (307, .post, "POST payload"), (308, .post, "POST payload"),
        (301, .put, "PUT payload"), (302, .put, "PUT payload"), (303, .put, "GET -"),
        (303, .head, "HEAD -"), (301, .get, "GET payload"),
    ])
    func methodAndBodyRulesPerCode(status: Int, method: HTTPRequest.Method, expected: String) async throws {
        let transport = redirecting(status)
        let session = Session(transport: transport)
        let request = mockRequest(method, "/start", headers: [.contentType: "text/plain"])
        let response = try await session.data(for: request, body: Body("payload"))
        #expect(response.text == expected)
        #expect(response.history.count == 1)
        #expect(response.history[0].response.status.code == status)
        #expect(response.request.path == "/target")
        let second = transport.requests[1]
        if expected.hasSuffix("-") {
            #expect(second.body == nil)
            #expect(second.head.headerFields[.contentType] == nil)
        } else {
            #expect(second.head.headerFields[.contentType] == "text/plain")
        }
    }

    @Test func aLocationThatIsNotUTF8KeepsItsBytes() async throws {
        // A Latin-1 `é` (E9) from an old server: read as text it became U+FFFD, and the next request went to
        // `/caf%EF%BF%BD`. curl sends the byte percent-encoded; so does Courier now. UTF-8 is kept as it is.
        for (bytes, path) in [(Array("/caf".utf8) + [0xE9], "/caf%E9"), (Array("/caf\u{E9} x".utf8), "/caf%C3%A9%20x"),
                              (Array("/a?q=".utf8) + [0xFF, 0x41], "/a?q=%FFA")] {
            let transport = MockTransport { request in
                guard request.pathWithoutQuery == "/start" else { return .text(request.path) }
                var redirect = MockResponse.redirect(.found, to: "/unused")
                redirect.headerFields = HTTPFields([HTTPField(name: .location, lenientValue: bytes)])
                return redirect
            }
            let response = try await Session(transport: transport).data(for: mockRequest(.get, "/start"))
            #expect(response.text == path)
        }
    }

    @Test func historyListsEveryHopInOrder() async throws {
        let transport = MockTransport(routes: [
            "/a": .redirect(.movedPermanently, to: "/b"),
            "/b": .redirect(.found, to: "http://other.test/c"),
            "/c": .text("done"),
        ])
        let (session, recorder) = recordingSession(transport)
        let response = try await session.data(for: mockRequest(.get, "/a"))
        #expect(response.text == "done")
        #expect(response.history.map { $0.request.path ?? "" } == ["/a", "/b"])
        #expect(response.history.map(\.response.status.code) == [301, 302])
        #expect(response.request.authority == "other.test")
        #expect(recorder.names(excluding: RecordingEventListener.progressKinds) == [
            "taskCreated", "taskResumed",
            "requestSent", "responseHeadReceived", "metricsCollected", "redirecting",
            "requestSent", "responseHeadReceived", "metricsCollected", "redirecting",
            "requestSent", "responseHeadReceived", "metricsCollected", "taskCompleted",
        ])
    }

    @Test func loopStopsAtTheLimitWithHistory() async throws {
        let transport = MockTransport(routes: ["/a": .redirect(.found, to: "/b"), "/b": .redirect(.found, to: "/a")])
        let session = Session(configuration: SessionConfiguration(redirectPolicy: RedirectPolicy(maximumRedirects: 5)), transport: transport)
        await #expect {
            _ = try await session.data(for: mockRequest(.get, "/a"))
        } throws: { error in
            guard let error = error as? CourierError, let redirect = error.underlyingError as? RedirectError else { return false }
            return error.stage == .redirect && redirect.reason == .tooManyRedirects
                && redirect.history.count == 6 && redirect.limit == 5
                && redirect.description.contains("5 redirects")
        }
        #expect(transport.requests.count == 6)
    }

    @Test func zeroLimitReturnsTheRedirectItself() async throws {
        let transport = redirecting(302)
        let session = Session(configuration: SessionConfiguration(redirectPolicy: .doNotFollow), transport: transport)
        let response = try await session.data(for: mockRequest(.get, "/start"))
        #expect(response.status.code == 302)
        #expect(response.head.headerFields[.location] == "/target")
        #expect(response.history.isEmpty)
        #expect(transport.requests.count == 1)
    }

    @Test func crossOriginHopDropsCredentials() async throws {
        let transport = redirecting(307, location: "https://elsewhere.test/target")
        let session = Session(transport: transport)
        let headers: HTTPFields = [.authorization: "Bearer secret", .cookie: "id=1", .proxyAuthorization: "Basic x", .accept: "text/plain"]
        _ = try await session.data(for: mockRequest(.get, "/start", headers: headers))
        let hop = transport.requests[1].head
        #expect(hop.authority == "elsewhere.test")
        #expect(hop.headerFields[.authorization] == nil)
        #expect(hop.headerFields[.cookie] == nil)
        #expect(hop.headerFields[.proxyAuthorization] == nil)
        #expect(hop.headerFields[.accept] == "text/plain")
    }

    @Test(arguments: ["http://mock.test:8080/target", "https://mock.test/target"])
    func portOrSchemeChangeIsCrossOrigin(location: String) async throws {
        let transport = redirecting(302, location: location)
        _ = try await Session(transport: transport).data(for: mockRequest(.get, "/start", headers: [.authorization: "x"]))
        #expect(transport.requests[1].head.headerFields[.authorization] == nil)
    }

    @Test func sameOriginHopKeepsCredentials() async throws {
        let transport = redirecting(302, location: "http://mock.test:80/target")
        _ = try await Session(transport: transport).data(for: mockRequest(.get, "/start", headers: [.authorization: "x", .cookie: "c=1"]))
        #expect(transport.requests[1].head.headerFields[.authorization] == "x")
        #expect(transport.requests[1].head.headerFields[.cookie] == "c=1")
    }

    @Test func hookSeesEachHopAndMayRefuse() async throws {
        let seen = Box<[Int]>([])
        let policy = RedirectPolicy { proposal in
            seen.update { $0.append(proposal.response.status.code) }
            return .refuse
        }
        let transport = redirecting(302)
        let session = Session(configuration: SessionConfiguration(redirectPolicy: policy), transport: transport)
        let response = try await session.data(for: mockRequest(.get, "/start"))
        #expect(seen.value == [302])
        #expect(response.status.code == 302)
        #expect(transport.requests.count == 1)
    }

    @Test func hookMayModifyTheNextRequest() async throws {
        let policy = RedirectPolicy { proposal in
            var modified = proposal.proposedRequest
            modified.headerFields[HTTPField.Name("X-Hop")!] = "1"
            #expect(proposal.request.path == "/start")
            #expect(proposal.proposedRequest.path == "/target")
            return .followModified(modified)
        }
        let transport = redirecting(302)
        let session = Session(configuration: SessionConfiguration(redirectPolicy: policy), transport: transport)
        _ = try await session.data(for: mockRequest(.get, "/start"))
        #expect(transport.requests[1].head.headerFields[HTTPField.Name("X-Hop")!] == "1")
    }

    @Test(arguments: [307, 308])
    func singlePassBodyRefusesToBeResent(status: Int) async throws {
        let transport = redirecting(status)
        let (body, writer) = Body.makeStream(length: .known(3))
        writer.yield(Data("abc".utf8))
        writer.finish()
        await #expect {
            _ = try await Session(transport: transport).data(for: mockRequest(.post, "/start"), body: body)
        } throws: { error in
            guard let error = error as? CourierError, let redirect = error.underlyingError as? RedirectError else { return false }
            return redirect.reason == .bodyNotReplayable && redirect.description.contains("\(status)")
                && error.stage == .redirect
        }
        #expect(transport.requests.count == 1)
    }

    @Test func singlePassBodyMayFollowA303() async throws {
        let transport = redirecting(303)
        let (body, writer) = Body.makeStream()
        writer.yield(Data("abc".utf8))
        writer.finish()
        let response = try await Session(transport: transport).data(for: mockRequest(.post, "/start"), body: body)
        #expect(response.text == "GET -")
    }

    @Test(arguments: ["ftp://mock.test/x", "http://", "http://[bad"])
    func invalidLocationIsATypedError(location: String) async throws {
        let transport = redirecting(302, location: location)
        await #expect {
            _ = try await Session(transport: transport).data(for: mockRequest(.get, "/start"))
        } throws: { error in
            ((error as? CourierError)?.underlyingError as? RedirectError)?.reason == .invalidLocation
        }
    }

    /// A redirect to another scheme says so, rather than that its URL is invalid; a broken URL says that.
    @Test func aLocationOfAnotherSchemeIsNamed() {
        let cases: [(String, String)] = [
            ("file:///etc/passwd", "has the scheme file:, and only http and https redirects are followed"),
            ("FTP://host/x", "has the scheme ftp:"),
            ("javascript:alert(1)", "has the scheme javascript:"),
            ("http:///x", "is not a valid URL"),
            ("/a:b", "is not a valid URL"),
            ("1abc:x", "is not a valid URL"),
        ]
        for (location, text) in cases {
            let error = RedirectError(reason: .invalidLocation, history: [], location: location)
            #expect(error.description.contains(text), "\(location): \(error.description)")
        }
    }

    /// Several `Location` fields that differ, byte for byte, are followed nowhere (clients disagree on which counts);
    /// fields that repeat one value are one.
    @Test func locationsThatDifferAreFollowedNowhere() async throws {
        for (values, other) in [(["/a", "/b"], "/b"), (["/a", "/a", "http://other.test/x"], "http://other.test/x"),
                                (["/caf\u{E9}", "/cafe\u{301}"], "/cafe\u{301}")] as [([String], String)] {
            let transport = MockTransport { request in
                guard request.pathWithoutQuery == "/start" else { return .text(request.path) }
                var redirect = MockResponse.redirect(.found, to: "/unused")
                redirect.headerFields = HTTPFields(values.map { HTTPField(name: .location, value: $0) })
                return redirect
            }
            do {
                let response = try await Session(transport: transport).data(for: mockRequest(.get, "/start"))
                Issue.record("\(values) followed to \(response.text)")
            } catch {
                let redirect = try #require(error.underlyingError as? RedirectError, "\(values): \(error)")
                #expect(redirect.reason == .ambiguousLocation && redirect.location == values[0] && redirect.otherLocation == other)
                #expect(redirect.history.count == 1 && error.kind == .redirectFailed)
                #expect(redirect.description.contains("Location fields that differ"), "\(redirect.description)")
            }
        }
        let transport = MockTransport { request in
            guard request.pathWithoutQuery == "/start" else { return .text(request.path) }
            var redirect = MockResponse.redirect(.found, to: "/unused")
            redirect.headerFields = HTTPFields([HTTPField(name: .location, value: "/same"), HTTPField(name: .location, value: "/same")])
            return redirect
        }
        #expect(try await Session(transport: transport).data(for: mockRequest(.get, "/start")).text == "/same")
    }

    @Test func codesThatAreNotRedirectsAreReturned() async throws {
        for code in [300, 304, 305] {
            let transport = redirecting(code)
            let response = try await Session(transport: transport).data(for: mockRequest(.get, "/start"))
            #expect(response.status.code == code)
        }
    }

    @Test func redirectWithoutLocationIsReturned() async throws {
        let transport = MockTransport(always: .status(.found))
        let response = try await Session(transport: transport).data(for: mockRequest())
        #expect(response.status.code == 302)
    }

    @Test func hookChangingTheMethodDropsTheBody() async throws {
        let policy = RedirectPolicy { proposal in
            var modified = proposal.proposedRequest
            modified.method = .get
            return .followModified(modified)
        }
        let transport = redirecting(307)
        let session = Session(configuration: SessionConfiguration(redirectPolicy: policy), transport: transport)
        let response = try await session.data(for: mockRequest(.post, "/start"), body: Body("payload"))
        #expect(response.text == "GET -")
    }
}
