import CourierCore
import CourierRequestSerialization
import FoundationEssentials
import HTTPTypes
import Testing

@Suite("Default headers")
struct DefaultHeadersTests {
    // MARK: Accept-Language

    @Test func acceptLanguageWeighsAtMostSixLanguages() {
        // Checklist 29.
        #expect(
            AcceptLanguage.value(for: ["en-US", "fr-FR", "de", "es", "it", "ja", "zh"])
                == "en-US;q=1, fr-FR;q=0.9, de;q=0.8, es;q=0.7, it;q=0.6, ja;q=0.5"
        )
        #expect(AcceptLanguage.value(for: ["de"]) == "de;q=1")
        #expect(AcceptLanguage.value(for: ["en-GB", "en"]) == "en-GB;q=1, en;q=0.9")
    }

    @Test func withoutAUsableLanguageTheValueIsEnglish() {
        #expect(AcceptLanguage.value(for: []) == "en")
        #expect(AcceptLanguage.value(for: AcceptLanguage.preferredLanguages(environment: [:])) == "en")
        #expect(AcceptLanguage.fallback == "en")
    }

    @Test(arguments: [
        // The messages locale: LC_ALL, then LC_MESSAGES, then LANG; empty values are skipped.
        (["LANG": "en_US.UTF-8"], ["en-US"]),
        (["LANG": "en_US.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"], ["fr-FR"]),
        (["LANG": "en_US.UTF-8", "LC_MESSAGES": "fr_FR", "LC_ALL": "de_DE.ISO-8859-1"], ["de-DE"]),
        (["LANG": "en_US.UTF-8", "LC_ALL": ""], ["en-US"]),
        // Codeset and modifier dropped.
        (["LANG": "ca_ES.UTF-8@valencia"], ["ca-ES"]),
        (["LANG": "en_US.UTF-8@euro"], ["en-US"]),
        (["LANG": "sr"], ["sr"]),
        // LANGUAGE comes first, then the locale; duplicates ignoring case go.
        (["LANGUAGE": "fr:de_AT", "LANG": "en_US.UTF-8"], ["fr", "de-AT", "en-US"]),
        (["LANGUAGE": "en_US:en_us:EN_US.UTF-8", "LANG": "en_US.UTF-8"], ["en-US"]),
        (["LANGUAGE": "::pt_BR::", "LANG": "pt_BR.UTF-8"], ["pt-BR"]),
        // LANGUAGE is ignored when the locale is C, POSIX or unset, as gettext ignores it.
        (["LANGUAGE": "fr:de", "LANG": "C.UTF-8"], []),
        (["LANGUAGE": "fr:de", "LC_ALL": "POSIX", "LANG": "en_US.UTF-8"], []),
        (["LANGUAGE": "fr:de"], []),
        (["LANG": "C"], []),
        // Entries that are not plain tags are skipped (no header injection from the environment).
        (["LANGUAGE": "x\r\nEvil: 1:it", "LANG": "es_ES.UTF-8"], ["it", "es-ES"]),
        (["LANGUAGE": "-x:1a:ja", "LANG": "ko_KR.UTF-8"], ["ja", "ko-KR"]),
    ])
    func preferredLanguagesFromTheEnvironment(environment: [String: String], expected: [String]) {
        #expect(AcceptLanguage.preferredLanguages(environment: environment) == expected)
    }

    @Test func moreThanSixLanguagesFromTheEnvironmentAreCut() {
        let environment = ["LANGUAGE": "fr:de:es:it:ja:zh:nl", "LANG": "en_GB.UTF-8"]
        let languages = AcceptLanguage.preferredLanguages(environment: environment)
        #expect(languages == ["fr", "de", "es", "it", "ja", "zh", "nl", "en-GB"])
        #expect(AcceptLanguage.value(for: languages) == "fr;q=1, de;q=0.9, es;q=0.8, it;q=0.7, ja;q=0.6, zh;q=0.5")
    }

    @Test func theProcessValueIsAValidHeader() {
        let value = AcceptLanguage.current
        #expect(!value.isEmpty)
        #expect(HTTPField.isValidValue(value))
        #expect(value == AcceptLanguage.value(for: AcceptLanguage.preferredLanguages(environment: ProcessInfo.processInfo.environment)))
    }

    // MARK: User-Agent

    @Test func userAgentFromItsParts() {
        // Checklist 30: `<name>/<version> (<platform details>)`.
        #expect(
            UserAgent.value(executable: "Example", version: "1.0", kernelRelease: "6.1.0-18-amd64", distribution: "Debian GNU/Linux 12 (bookworm)")
                == "Example/1.0 (Linux 6.1.0-18-amd64; Debian GNU/Linux 12 (bookworm))"
        )
        #expect(UserAgent.value(executable: "tool", version: nil, kernelRelease: "6.1.0", distribution: nil) == "tool (Linux 6.1.0)")
        #expect(UserAgent.value(executable: "tool", version: "", kernelRelease: nil, distribution: "") == "tool (Linux)")
    }

    @Test func userAgentIsForcedToASCIIAndStaysParseable() {
        // Non-ASCII and control characters dropped; product characters outside a token become `-`.
        #expect(
            UserAgent.value(executable: "Café App", version: "2.0 béta/x", kernelRelease: "6.1\u{7}", distribution: "Ubuntu 24.04 LTS ñ\r\n")
                == "Caf-App/2.0-bta-x (Linux 6.1; Ubuntu 24.04 LTS)"
        )
        // Unbalanced parentheses and backslashes would end the comment early: dropped.
        #expect(UserAgent.value(executable: "a", version: nil, kernelRelease: "1", distribution: "Odd (OS") == "a (Linux 1; Odd OS)")
        #expect(UserAgent.value(executable: "a", version: nil, kernelRelease: "1", distribution: "Odd) (OS") == "a (Linux 1; Odd OS)")
        #expect(UserAgent.value(executable: "a", version: nil, kernelRelease: "1", distribution: #"x\y"#) == "a (Linux 1; xy)")
        // A name with nothing left is replaced.
        #expect(UserAgent.value(executable: "日本", version: nil, kernelRelease: nil, distribution: nil) == "Courier (Linux)")
    }

    @Test func theProcessUserAgentIsNonEmptyASCII() throws {
        // Checklist 30: a non-empty ASCII-only User-Agent of the form `<name>/<version> (<platform details>)`.
        for value in [UserAgent.current(), UserAgent.current(version: "3.1.4")] {
            #expect(!value.isEmpty)
            #expect(value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
            #expect(value.contains(" (Linux"))
            #expect(value.hasSuffix(")"))
            #expect(HTTPField.isValidValue(value))
        }
        let versioned = UserAgent.current(version: "3.1.4")
        let product = try #require(versioned.split(separator: " ").first)
        #expect(product.hasSuffix("/3.1.4"))
        #expect(!product.dropLast("/3.1.4".count).isEmpty)
        #expect(!UserAgent.current().split(separator: " ")[0].contains("/"))
    }

    @Test(arguments: [
        ("NAME=Debian\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n", "Debian GNU/Linux 12 (bookworm)"),
        ("PRETTY_NAME='Fedora Linux 40 (Workstation Edition)'", "Fedora Linux 40 (Workstation Edition)"),
        ("PRETTY_NAME=Alpine", "Alpine"),
        (#"PRETTY_NAME="Say \"hi\" \\ \$HOME""#, #"Say "hi" \ $HOME"#),
        ("# PRETTY_NAME=\"commented\"\nNAME=x", nil),
        ("PRETTY_NAME=\"\"", nil),
        ("", nil),
        ("PRETTY_NAME=\"Ubuntu 24.04 LTS\"\r\n", "Ubuntu 24.04 LTS"),
    ] as [(String, String?)])
    func distributionFromOSRelease(text: String, expected: String?) {
        #expect(UserAgent.distribution(fromOSRelease: text) == expected)
    }

    // MARK: Defaults in the serializers

    @Test func courierDefaultsCarryBothHeaders() {
        let defaults = HTTPFields.courierDefaults()
        #expect(defaults[.acceptLanguage] == AcceptLanguage.current)
        #expect(defaults[.userAgent] == UserAgent.current())
        #expect(defaults.count == 2)
        let versioned = HTTPFields.courierDefaults(version: "9.9")
        #expect(versioned[.userAgent] == UserAgent.current(version: "9.9"))
        #expect(versioned[.acceptLanguage] == AcceptLanguage.current)
    }

    @Test func everySerializerStartsWithTheDefaults() throws {
        // Checklist 29 and 30: AFNetworking sets both in its serializer's init.
        let request = try makeRequest(.get, "http://example.com/")
        let serializers: [any DefaultHeaderFieldsSerializer] = [
            HTTPRequestSerializer(), JSONRequestSerializer(), PropertyListRequestSerializer(),
        ]
        for serializer in serializers {
            #expect(serializer.defaultHeaderFields == .courierDefaults())
            let sent = try serializer.serialize(request, parameters: nil).request
            #expect(sent.headerFields[.acceptLanguage] == AcceptLanguage.current)
            #expect(sent.headerFields[.userAgent] == UserAgent.current())
        }
    }

    @Test func anEmptyDefaultGivesNoHeaders() throws {
        let request = try makeRequest(.post, "http://example.com/")
        let serializers: [any DefaultHeaderFieldsSerializer] = [
            HTTPRequestSerializer(defaultHeaderFields: [:]), JSONRequestSerializer(defaultHeaderFields: [:]),
            PropertyListRequestSerializer(defaultHeaderFields: [:]),
        ]
        for serializer in serializers {
            #expect(serializer.defaultHeaderFields.isEmpty)
            let sent = try serializer.serialize(request, parameters: ["a": 1]).request
            #expect(sent.headerFields[.acceptLanguage] == nil)
            #expect(sent.headerFields[.userAgent] == nil)
        }
    }

    @Test func aRequestsOwnUserAgentWins() throws {
        let request = try makeRequest(.get, "http://example.com/", headers: [.userAgent: "mine/1", .acceptLanguage: "nl"])
        let sent = try HTTPRequestSerializer().serialize(request, parameters: nil).request
        #expect(sent.headerFields[values: .userAgent] == ["mine/1"])
        #expect(sent.headerFields[values: .acceptLanguage] == ["nl"])
    }
}
