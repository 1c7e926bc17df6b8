import CourierCookies
import CourierCore
import CourierTesting
import FoundationEssentials
import HTTPTypes
import Testing

// docs/cookies.md's examples, verbatim (Scripts/lib/check-doc-examples.py checks that each appears here), run against a
// MockTransport playing the shop: `/login` sets `sid`, `/basket` echoes the Cookie header.

@Suite struct CookiesDocExamplesTests {
    private let transport = MockTransport { request in
        switch request.path {
        case "/login": MockResponse(status: .ok, headerFields: [.setCookie: "sid=s3cr3t; Path=/; HttpOnly"])
        case "/basket": .text(request.head.headerFields[.cookie] ?? "")
        default: .status(.notFound)
        }
    }

    @Test func aShopSessionKeepsItsCookie() async throws {
        let transport = self.transport
        let jar = CookieJar()
        var configuration = SessionConfiguration(baseURL: URL(string: "https://shop.example"))
        configuration.networkInterceptors = [CookieInterceptor(jar: jar)]
        let shop = Session(configuration: configuration, transport: transport)
        _ = try await shop.data(.post, "login")                                 // Set-Cookie: sid=…
        let basket = try await shop.data(.get, "basket")                        // Cookie: sid=…

        #expect(basket.text == "sid=s3cr3t")

        let path = "/tmp/shop-cookies.txt"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try jar.write(netscapeFile: "/tmp/shop-cookies.txt")        // mode 0600, replaced atomically
        let restored = try CookieJar(netscapeFile: "/tmp/shop-cookies.txt")
        print(restored.cookies(for: URL(string: "https://shop.example/basket")!).map(\.name))

        #expect(restored.cookies(for: URL(string: "https://shop.example/basket")!).map(\.name) == ["sid"])
        #expect(restored.allCookies.first?.httpOnly == true)
    }

    @Test func publicSuffixLists() {
        #expect(PublicSuffixList.system.isPublicSuffix("co.uk"))
        let testJar = CookieJar(publicSuffixes: PublicSuffixList(suffixes: ["test"]))

        testJar.store(setCookieFields: ["a=1; Domain=test", "b=2; Domain=api.test"], for: URL(string: "http://www.api.test/")!)
        #expect(testJar.allCookies.map(\.name) == ["b"])
    }
}
