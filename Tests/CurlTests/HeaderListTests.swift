import CCurl
@testable import CourierCurl
import Testing

/// A transfer's header list: its own lines in order, then the shared line it may end with, which freeing the list
/// leaves whole and unlinked for the next list.
@Suite("Header list")
struct HeaderListTests {
    // Statics, as the transport's own shared line is: a shared line is never freed, and LSan (the sanitizer runs of
    // these tests) reports one that nothing reaches at exit.
    static let gzipLine = SharedHeaderLine("Accept-Encoding: gzip")
    static let brotliLine = SharedHeaderLine("Accept-Encoding: br")

    /// The lines of a `curl_slist`, in order.
    func lines(_ list: UnsafeMutablePointer<curl_slist>?) -> [String] {
        var lines: [String] = []
        var node = list
        while let current = node {
            lines.append(String(cString: current.pointee.data))
            node = current.pointee.next
        }
        return lines
    }

    @Test func ownLinesInOrderThenTheSharedOne() throws {
        let shared = try #require(Self.gzipLine)
        for count in 0..<4 {
            var list = CurlHeaderList()
            let own = (0..<count).map { "X-Line-\($0): \($0)" }
            for line in own { list.append(line) }
            #expect(lines(list.raw) == own)
            list.end(with: shared)
            #expect(lines(list.raw) == own + ["Accept-Encoding: gzip"])
            list.free()
            #expect(list.raw == nil)
            // The shared line is whole and ends nothing: the next list starts from it unchanged.
            #expect(lines(shared.node) == ["Accept-Encoding: gzip"])
        }
    }

    @Test func aFreedListIsReusable() throws {
        let shared = try #require(Self.brotliLine)
        var list = CurlHeaderList()
        list.append("A: 1")
        list.end(with: shared)
        list.free()
        list.append("B: 2")
        list.append("C: 3")
        #expect(lines(list.raw) == ["B: 2", "C: 3"])
        list.end(with: shared)
        #expect(lines(list.raw) == ["B: 2", "C: 3", "Accept-Encoding: br"])
        list.free()
        #expect(lines(shared.node) == ["Accept-Encoding: br"])
    }

    @Test func aListWithoutTheSharedLineFreesAsBefore() {
        var list = CurlHeaderList()
        list.append("Expect:")
        #expect(lines(list.raw) == ["Expect:"])
        list.free()
        #expect(list.raw == nil)
        list.free()   // twice is harmless
    }
}
