import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Property-list request serializer")
struct PropertyListRequestSerializerTests {
    let serializer = PropertyListRequestSerializer()

    /// The XML body `serializer` writes for `parameters` on a POST.
    func plist(_ parameters: Parameters) async throws -> String? {
        try await text(of: serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: parameters).body)
    }

    /// The body bytes for `parameters` on a POST.
    func plistData(_ parameters: Parameters) async throws -> Data {
        let body = try #require(try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: parameters).body)
        return try await body.collect(upTo: 1 << 20)
    }

    /// An XML plist document around `root` (lines already indented).
    func document(_ root: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(root)
        </plist>

        """
    }

    /// True when `error` is an invalid-property-list error at `location`.
    func isInvalidPropertyList(_ error: any Error, at location: String) -> Bool {
        guard let error = error as? RequestSerializationError else { return false }
        return error.reason == .invalidPropertyList && error.location == location
            && error.description.hasPrefix("invalid property list at \(location): ")
    }

    // MARK: Bodies

    @Test func aDictionaryBecomesAnXMLPropertyList() async throws {
        // Checklist 37: Content-Type application/x-plist and an XML plist body.
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["key": "value"])
        #expect(serialized.request.headerFields[.contentType] == "application/x-plist")
        #expect(try await text(of: serialized.body) == document("<dict>\n\t<key>key</key>\n\t<string>value</string>\n</dict>"))
    }

    @Test func everyKindOfValueIsLaidOutAsApplesWriterDoes() async throws {
        let parameters: Parameters = [
            "s": "x", "i": -3, "d": 1.5, "whole": 2.0, "t": true, "f": false,
            "a": [1, "two", [:], []], "o": ["z": 1], "bytes": .data(Data("hi!".utf8)),
        ]
        let expected = document("""
            <dict>
            \t<key>a</key>
            \t<array>
            \t\t<integer>1</integer>
            \t\t<string>two</string>
            \t\t<dict/>
            \t\t<array/>
            \t</array>
            \t<key>bytes</key>
            \t<data>
            \taGkh
            \t</data>
            \t<key>d</key>
            \t<real>1.5</real>
            \t<key>f</key>
            \t<false/>
            \t<key>i</key>
            \t<integer>-3</integer>
            \t<key>o</key>
            \t<dict>
            \t\t<key>z</key>
            \t\t<integer>1</integer>
            \t</dict>
            \t<key>s</key>
            \t<string>x</string>
            \t<key>t</key>
            \t<true/>
            \t<key>whole</key>
            \t<real>2</real>
            </dict>
            """)
        #expect(try await plist(parameters) == expected)
    }

    @Test func anyValueMayBeTheTopLevel() async throws {
        #expect(try await plist("lone") == document("<string>lone</string>"))
        #expect(try await plist([]) == document("<array/>"))
        #expect(try await plist([:]) == document("<dict/>"))
        #expect(try await plist(7) == document("<integer>7</integer>"))
    }

    @Test func textIsXMLEscaped() async throws {
        #expect(try await plist(["a<b>&c": "1 < 2 && 3 > 2 \"q\" 'a' é 👮🏽"]) == document(
            "<dict>\n\t<key>a&lt;b&gt;&amp;c</key>\n\t<string>1 &lt; 2 &amp;&amp; 3 &gt; 2 \"q\" 'a' é 👮🏽</string>\n</dict>"
        ))
        // Tab and line feed stay; a carriage return becomes a character reference, so an XML
        // reader does not fold CR LF into LF.
        #expect(try await plist(["t": "a\tb\nc\r\nd"]) == document("<dict>\n\t<key>t</key>\n\t<string>a\tb\nc&#13;\nd</string>\n</dict>"))
    }

    @Test func longDataIsWrappedAt76Characters() async throws {
        let bytes = Data((0..<120).map { UInt8($0) })
        let base64 = bytes.base64EncodedString()
        let body = try #require(try await plist(["d": .data(bytes)]))
        #expect(base64.count == 160)
        let lines = [base64.prefix(76), base64.dropFirst(76).prefix(76), base64.dropFirst(152)]
        #expect(body.contains("\t<data>\n\t\(lines[0])\n\t\(lines[1])\n\t\(lines[2])\n\t</data>\n"))
        #expect(try await plist(["d": .data(Data())])?.contains("\t<data>\n\t</data>\n") == true)
    }

    @Test(arguments: [
        (0.1, "0.1"), (-0.0, "-0"), (1e16, "1e+16"), (Double.nan, "nan"), (Double.infinity, "+infinity"),
        (-Double.infinity, "-infinity"), (Double.leastNonzeroMagnitude, "5e-324"),
    ])
    func realsAreExactAndNonFiniteOnesUseApplesWords(value: Double, expected: String) async throws {
        // Apple's writer writes NaN and the infinities, and its reader takes them back; so does
        // AFNetworking, so they are written rather than refused.
        #expect(try await plist([.double(value)]) == document("<array>\n\t<real>\(expected)</real>\n</array>"))
    }

    // MARK: Reading back

    struct Decoded: Decodable, Equatable {
        let name: String
        let count: Int
        let ratio: Double
        let on: Bool
        let blob: Data
        let tags: [String]
        let nested: [String: Int]
        let text: String
    }

    @Test func foundationsPropertyListDecoderReadsTheBodyBack() async throws {
        let parameters: Parameters = [
            "name": "a & <b>", "count": 42, "ratio": 0.1, "on": true, "blob": .data(Data([0, 1, 255])),
            "tags": ["x", "y"], "nested": ["k": 1], "text": "line\r\nnext\ttab",
        ]
        let decoded = try PropertyListDecoder().decode(Decoded.self, from: try await plistData(parameters))
        #expect(decoded == Decoded(
            name: "a & <b>", count: 42, ratio: 0.1, on: true, blob: Data([0, 1, 255]),
            tags: ["x", "y"], nested: ["k": 1], text: "line\r\nnext\ttab"
        ))
    }

    // MARK: Invalid property lists

    @Test func nullAndSetsHaveNoPropertyListForm() throws {
        // Checklist 38. AFNetworking's test uses a dictionary key 42 that is not a string; a
        // `Parameters.dictionary` key is a `String` by type, so that cannot be written here.
        // What has no property-list form instead is `.null` and `.set`: error, no request.
        #expect {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["a": [1, ["n": nil]]])
        } throws: { isInvalidPropertyList($0, at: #"parameters["a"][1]["n"]"#) }
        #expect {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: ["s": .set(["x"])])
        } throws: { isInvalidPropertyList($0, at: #"parameters["s"]"#) }
        #expect {
            _ = try serializer.serialize(try makeRequest(.put, "http://example.com/put"), parameters: .null)
        } throws: { isInvalidPropertyList($0, at: "parameters") }
    }

    @Test func aSessionCallWithNullFailsAndSendsNothing() async throws {
        // Checklist 38 through a session: the error comes back, nothing is sent.
        let session = Session(
            configuration: SessionConfiguration(requestSerializer: PropertyListRequestSerializer()),
            transport: RefusingTransport()
        )
        do {
            _ = try session.post("http://example.com/post", parameters: ["k": nil])
            Issue.record("expected the call to fail before creating a task")
        } catch {
            #expect(error.stage == .requestSerialization)
            #expect(isInvalidPropertyList(error.underlyingError, at: #"parameters["k"]"#))
        }
        #expect(session.tasks.isEmpty)
    }

    @Test(arguments: ["\u{0}", "\u{1}", "\u{B}", "\u{C}", "\u{1F}", "\u{FFFE}", "\u{FFFF}"])
    func controlCharactersXMLCannotCarryAreRefused(character: String) throws {
        #expect {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/"), parameters: ["k": .string("a" + character)])
        } throws: { isInvalidPropertyList($0, at: #"parameters["k"]"#) }
        #expect {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/"), parameters: .dictionary([character: 1]))
        } throws: { error in
            (error as? RequestSerializationError)?.reason == .invalidPropertyList
        }
    }

    @Test func theMessageNamesTheProblem() throws {
        do {
            _ = try serializer.serialize(try makeRequest(.post, "http://example.com/"), parameters: ["k": "a\u{1}"])
            Issue.record("expected an error")
        } catch let error as RequestSerializationError {
            #expect(error.description.hasPrefix(#"invalid property list at parameters["k"]: U+0001 cannot appear in an XML property list"#))
        }
    }

    // MARK: URI methods and headers

    @Test func getParametersGoIntoTheQueryWithoutBodyOrContentType() throws {
        let serialized = try serializer.serialize(try makeRequest(.get, "http://example.com/get"), parameters: ["key": "value", "n": nil])
        #expect(serialized.request.path == "/get?key=value&n")
        #expect(serialized.body == nil)
        #expect(serialized.request.headerFields[.contentType] == nil)
    }

    @Test func postWithoutParametersHasNoBodyAndNoContentType() throws {
        // Spec §3.5.
        let serialized = try serializer.serialize(try makeRequest(.post, "http://example.com/post"), parameters: nil)
        #expect(serialized.body == nil)
        #expect(serialized.request.headerFields[.contentType] == nil)
    }

    @Test func anExistingContentTypeIsKept() throws {
        let request = try makeRequest(.post, "http://example.com/", headers: [.contentType: "application/xml"])
        let serialized = try serializer.serialize(request, parameters: ["a": 1])
        #expect(serialized.request.headerFields[values: .contentType] == ["application/xml"])
    }

    @Test func settingsApplyAsInTheHTTPSerializer() async throws {
        let serializer = PropertyListRequestSerializer(
            methodsEncodingParametersInURI: [.get],
            defaultHeaderFields: [.xFoo: "foo value"],
            queryStringBuilder: nil,
            queryOptions: .init(arrays: .indexed)
        )
        let get = try serializer.serialize(try makeRequest(.get, "http://example.com/"), parameters: ["a": [1]])
        #expect(get.request.path == "/?a%5B0%5D=1")
        #expect(get.request.headerFields[.xFoo] == "foo value")
        let delete = try serializer.serialize(try makeRequest(.delete, "http://example.com/"), parameters: ["a": 1])
        #expect(delete.request.path == "/")
        #expect(delete.request.headerFields[.contentType] == "application/x-plist")
        #expect(delete.request.headerFields[.xFoo] == "foo value")
        #expect(try await text(of: delete.body)?.contains("<integer>1</integer>") == true)
    }

    @Test func defaultsAreAFNetworkings() {
        #expect(serializer.methodsEncodingParametersInURI == [.get, .head, .delete])
        #expect(serializer.defaultHeaderFields == .courierDefaults())
        #expect(serializer.queryStringBuilder == nil)
        #expect(serializer.queryOptions == .default)
    }
}
