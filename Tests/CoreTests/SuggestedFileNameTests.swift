import CourierCore
import Foundation
import Testing

@Suite("Suggested file names")
struct SuggestedFileNameTests {
    private func name(_ disposition: String?, _ url: String? = nil) -> String? {
        SuggestedFileName.from(contentDisposition: disposition, url: url.flatMap(URL.init(string:)))
    }

    @Test func contentDispositionNamesTheFile() {
        #expect(name(#"attachment; filename="report.pdf""#, "http://h/download?id=3") == "report.pdf")
        #expect(name("attachment; filename=plain.txt", "http://h/x") == "plain.txt")
        #expect(name(#"attachment; filename="a \"quoted\" name.txt"; size=3"#) == #"a "quoted" name.txt"#)
        #expect(name("inline; FileName=upper.csv") == "upper.csv")
        #expect(name(#"attachment; name="filename=evil.sh"; filename="real.txt""#) == "real.txt")
    }

    @Test func theExtendedFilenameWins() {
        #expect(name(#"attachment; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve%20file.txt"#) == "naïve file.txt")
        #expect(name(#"attachment; FILENAME*=utf-8''%E2%82%AC.txt"#) == "€.txt")
        #expect(name(#"attachment; filename*=ISO-8859-1''x.txt; filename="kept.txt""#) == "kept.txt")
        #expect(name("attachment; filename*=UTF-8''%ZZ; filename=kept.txt") == "kept.txt")
    }

    @Test func theURLsLastSegmentIsTheFallback() {
        #expect(name(nil, "http://h/files/1m.bin") == "1m.bin")
        #expect(name("attachment", "http://h/files/my%20file.tar.gz?x=1") == "my file.tar.gz")
        #expect(name(#"attachment; filename="""#, "http://h/files/data.csv") == "data.csv")
        #expect(name(nil, "http://h/") == nil)
        #expect(name(nil, "http://h") == nil)
        #expect(name(nil) == nil)
    }

    @Test func namesAreNeverPathsOrHidden() {
        #expect(name(#"attachment; filename="../../etc/passwd""#) == "passwd")
        #expect(name(#"attachment; filename="/etc/cron.d/job""#) == "job")
        #expect(name(#"attachment; filename="..\\..\\boot.ini""#) == "boot.ini")
        #expect(name("attachment; filename*=UTF-8''..%2F..%2F.ssh%2Fauthorized_keys") == "authorized_keys")
        #expect(name(#"attachment; filename=".bashrc""#) == "bashrc")
        #expect(name(#"attachment; filename=".htaccess""#) == "htaccess")
        #expect(name(#"attachment; filename=" . .hidden ""#) == "hidden")
        #expect(name(#"attachment; filename="..""#, "http://h/real.bin") == "real.bin")
        #expect(name(#"attachment; filename="...""#) == nil)
        #expect(name(nil, "http://h/a/..%2F..%2F.profile") == "profile")
    }

    @Test func controlAndBidiCharactersAreDropped() {
        #expect(name("attachment; filename=\"a\u{01}b.txt\"") == "ab.txt")
        #expect(name("attachment; filename*=UTF-8''evil%0Aname%1B%5D0%3Bx%07.txt") == "evilname]0;x.txt")
        #expect(name("attachment; filename*=UTF-8''a%00b.txt") == "ab.txt")
        #expect(name("attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe") == "invoicefdp.exe")
        #expect(name("attachment; filename=\"\u{9B}31mred\"") == "31mred")
    }

    @Test func namesFitInTwoHundredFiftyFiveBytes() {
        #expect(SuggestedFileName.sanitized(String(repeating: "x", count: 300)).utf8.count == 255)
        // Cut at a character, never inside one: 127 two-byte characters, not 127½.
        #expect(SuggestedFileName.sanitized(String(repeating: "é", count: 200)).utf8.count == 254)
    }

    @Test func aMarkJoiningASlashOrADotHidesNeither() {
        // Found by the content-disposition fuzz target's long run: U+0600 (a prepended mark) and "/" are one
        // character, so a split by characters kept the "/" and the name was a path.
        #expect(SuggestedFileName.sanitized("\u{600}/c") == "c")
        #expect(SuggestedFileName.sanitized("a\u{600}/../\u{600}/etc") == "etc")
        #expect(SuggestedFileName.sanitized(".\u{301}hidden") == "\u{301}hidden")
        for name in ["x\u{600}/y", "\u{600}\\y", "/\u{301}y"] {
            #expect(!SuggestedFileName.sanitized(name).unicodeScalars.contains { $0 == "/" || $0 == "\\" }, "\(name.debugDescription)")
        }
    }
}
