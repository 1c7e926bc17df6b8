import CLibXML2
import CourierCore
import CourierXML
import FoundationEssentials
import Glibc
import Testing
import CourierTesting

/// Every load libxml2 attempts in this process: a loader installed once, process-wide, that
/// records the URL and refuses. Courier never loads anything, so the log must stay empty, which
/// proves no file was opened and no connection made through libxml2's I/O.
private let attemptedLoads = Locked<[String]>([])
private let recordingLoaderInstalled: Bool = {
    xmlSetExternalEntityLoader { url, _, _ in
        let address = url.map { String(cString: $0) } ?? "(nil)"
        attemptedLoads.withLock { $0.append(address) }
        return nil
    }
    return true
}()

/// A TCP listener on 127.0.0.1 (ephemeral port) that never accepts: a connection attempt would
/// sit in its backlog, where `pendingConnection()` finds it.
private final class Listener {
    let port: Int
    private let socket: Int32

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(socket, 16) == 0 else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        self.socket = socket
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(socket) }

    /// True when someone connected.
    func pendingConnection() -> Bool {
        let client = accept(socket, nil, nil)
        if client >= 0 {
            close(client)
            return true
        }
        return false
    }
}

/// The malicious corpus: each document is refused with a typed error, quickly, with nothing
/// loaded, read or connected to, by the DOM parser, the SAX parser and the streaming parser alike.
@Suite(.serialized) struct MaliciousDocumentTests {
    init() {
        _ = recordingLoaderInstalled
    }

    /// Parses `xml` every way CourierXML can, expecting the same refusal each time.
    private func expectRefused(_ xml: String, _ reason: XMLError.Reason, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let data = Data(xml.utf8)
        let clock = ContinuousClock()
        let start = clock.now
        var errors: [XMLError] = []
        do { _ = try XMLDocument(data: data) } catch { errors.append(error) }
        do { _ = try XMLSAXParser(data: data).events() } catch { errors.append(error) }
        do { _ = try XMLFormatter.format(data) } catch { errors.append(error) }
        do {
            for try await _ in XMLStream.events(in: Body(data)) {}
        } catch let error as XMLError {
            errors.append(error)
        }
        // Fed one byte at a time, the refusal is the same.
        do {
            let parser = try XMLEventParser()
            for byte in data { _ = try parser.feed([byte]) }
            _ = try parser.finish()
        } catch {
            errors.append(error)
        }
        #expect(errors.count == 5, "every parser refuses", sourceLocation: sourceLocation)
        for error in errors {
            #expect(error.reason == reason, "\(error)", sourceLocation: sourceLocation)
            #expect(error.line != nil, sourceLocation: sourceLocation)
        }
        #expect(clock.now - start < TimeBounds.limit(.seconds(2)), "no blow-up", sourceLocation: sourceLocation)
        #expect(attemptedLoads.withLock { $0 }.isEmpty, "libxml2 never tried to load anything", sourceLocation: sourceLocation)
    }

    @Test func billionLaughs() async throws {
        try await expectRefused("""
            <?xml version="1.0"?>
            <!DOCTYPE lolz [
              <!ENTITY lol "lol">
              <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
              <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
              <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
              <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
              <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
              <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
              <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
              <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
              <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
            ]>
            <lolz>&lol9;</lolz>
            """, .entityDeclarationRefused)
        let error = try #require(throws: XMLError.self) { try XMLDocument(data: Data("<!DOCTYPE l [<!ENTITY lol \"lol\">]><l>&lol;</l>".utf8)) }
        #expect(error.message.contains("<!ENTITY lol"))
        #expect(error.line == 1)
    }

    @Test func quadraticBlowup() async throws {
        let big = String(repeating: "x", count: 100_000)
        let references = String(repeating: "&a;", count: 50_000)
        try await expectRefused("<!DOCTYPE kaboom [<!ENTITY a \"\(big)\">]><kaboom>\(references)</kaboom>", .entityDeclarationRefused)
    }

    @Test func externalEntityReadingAFile() async throws {
        let secret = "/tmp/courier-xxe-\(getpid()).txt"
        try Data("TOP-SECRET-\(getpid())".utf8).write(to: URL(fileURLWithPath: secret))
        defer { unlink(secret) }
        for target in ["file://\(secret)", secret, "file:///etc/passwd"] {
            try await expectRefused("""
                <?xml version="1.0"?>
                <!DOCTYPE foo [<!ENTITY xxe SYSTEM "\(target)">]>
                <foo>&xxe;</foo>
                """, .externalEntityRefused)
        }
        let error = try #require(throws: XMLError.self) {
            try XMLDocument(data: Data("<!DOCTYPE foo [<!ENTITY xxe SYSTEM \"file://\(secret)\">]><foo>&xxe;</foo>".utf8))
        }
        #expect(error.message.contains("SYSTEM \"file://\(secret)\""))
        #expect(!error.description.contains("TOP-SECRET"))
        // Attributes cannot reach external entities either (and XML forbids it).
        try await expectRefused("<!DOCTYPE foo [<!ENTITY xxe SYSTEM \"\(secret)\">]><foo a=\"&xxe;\"/>", .externalEntityRefused)
    }

    @Test func externalEntityOverHTTPNeverConnects() async throws {
        let listener = try Listener()
        try await expectRefused("""
            <!DOCTYPE foo [<!ENTITY xxe SYSTEM "http://127.0.0.1:\(listener.port)/secret">]>
            <foo>&xxe;</foo>
            """, .externalEntityRefused)
        try await expectRefused("""
            <!DOCTYPE foo [<!ENTITY xxe PUBLIC "-//X//Y" "http://127.0.0.1:\(listener.port)/public">]>
            <foo>&xxe;</foo>
            """, .externalEntityRefused)
        try await Task.sleep(for: .milliseconds(100))
        #expect(!listener.pendingConnection(), "nothing connected to 127.0.0.1:\(listener.port)")
    }

    @Test func parameterEntities() async throws {
        let listener = try Listener()
        // External parameter entity: the classic out-of-band XXE.
        try await expectRefused("""
            <!DOCTYPE foo [
              <!ENTITY % remote SYSTEM "http://127.0.0.1:\(listener.port)/evil.dtd">
              %remote;
            ]>
            <foo/>
            """, .externalEntityRefused)
        // Internal parameter entities building declarations.
        try await expectRefused("""
            <!DOCTYPE foo [
              <!ENTITY % decl "<!ENTITY inner 'boom'>">
              %decl;
            ]>
            <foo>&inner;</foo>
            """, .entityDeclarationRefused)
        // A parameter entity reference nobody declared loads nothing.
        #expect(throws: XMLError.self) { try XMLDocument(data: Data("<!DOCTYPE foo [ %undeclared; ]><foo/>".utf8)) }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!listener.pendingConnection())
        #expect(attemptedLoads.withLock { $0 }.isEmpty)
    }

    @Test func externalDTD() async throws {
        let listener = try Listener()
        let document = """
            <?xml version="1.0"?>
            <!DOCTYPE foo SYSTEM "http://127.0.0.1:\(listener.port)/evil.dtd">
            <foo>text</foo>
            """
        try await expectRefused(document, .externalEntityRefused)
        try await expectRefused(
            "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\" \"http://127.0.0.1:\(listener.port)/x.dtd\"><html/>",
            .externalEntityRefused
        )
        // Allowed by option, the reference is accepted and still never fetched…
        var options = XMLParseOptions()
        options.allowsExternalDTDReference = true
        #expect(try XMLDocument(data: Data(document.utf8), options: options).root.text == "text")
        // …and an entity only that DTD could declare is refused rather than dropped.
        let entity = try #require(throws: XMLError.self) {
            try XMLDocument(data: Data("<!DOCTYPE foo SYSTEM \"http://127.0.0.1:\(listener.port)/x.dtd\"><foo>&nbsp;</foo>".utf8), options: options)
        }
        #expect(entity.reason == .externalEntityRefused)
        let inAttribute = try #require(throws: XMLError.self) {
            try XMLDocument(data: Data("<!DOCTYPE foo SYSTEM \"x.dtd\"><foo a=\"&nbsp;\"/>".utf8), options: options)
        }
        #expect(inAttribute.reason == .externalEntityRefused)
        #expect(throws: XMLError.self) {
            try XMLSAXParser(data: Data("<!DOCTYPE foo SYSTEM \"x.dtd\"><foo>&nbsp;</foo>".utf8), options: options).events()
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(!listener.pendingConnection())
        #expect(attemptedLoads.withLock { $0 }.isEmpty)
    }

    @Test func unparsedEntitiesAndNotations() async throws {
        try await expectRefused("""
            <!DOCTYPE foo [
              <!NOTATION gif SYSTEM "image/gif">
              <!ENTITY picture SYSTEM "file:///etc/passwd" NDATA gif>
            ]>
            <foo/>
            """, .externalEntityRefused)
    }

    @Test func xincludeIsNotProcessed() throws {
        let document = try XMLDocument(data: Data("""
            <doc xmlns:xi="http://www.w3.org/2001/XInclude"><xi:include href="file:///etc/passwd" parse="text"/></doc>
            """.utf8))
        #expect(document.root.text.isEmpty)
        #expect(document.root.elements.first?.name.localName == "include")
        #expect(attemptedLoads.withLock { $0 }.isEmpty)
    }

    @Test func theRecordingLoaderWorks() throws {
        // The proof above is only as good as the loader: libxml2 must call it when asked to load.
        let before = attemptedLoads.withLock { $0.count }
        #expect(xmlLoadExternalEntity("file:///nonexistent-courier-check", nil, nil) == nil)
        let after = attemptedLoads.withLock { $0 }
        #expect(after.count == before + 1)
        #expect(after.last?.hasSuffix("nonexistent-courier-check") == true)
        attemptedLoads.withLock { $0.removeAll() }
    }
}
