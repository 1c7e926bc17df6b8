/// Where libxml2 2.9's push parser may misjudge a construct that a chunk of the body cuts, and how much of
/// what Courier is about to push is safe to push now. Pure: no libxml2.
///
/// Two looks of libxml2's are fooled by a cut (both found by the `xml` fuzz target):
/// - character data is checked for the forbidden `]]>` only within the bytes held, so a chunk ending in `]` or
///   `]]` let a malformed document through;
/// - a comment is taken to have arrived once a `-->` follows its `<!--`, counting the `--` of `<!--` itself,
///   so a comment opening `<!-->` or `<!--->` that a chunk cut before its real end failed a well-formed
///   document ("Comment not terminated").
///
/// ``PushParser`` holds back what this type says to hold and gives it to libxml2 with the next chunk (or at
/// the end), so such constructs always reach libxml2 whole.
///
/// The scan does not parse: a `<!--` inside a processing instruction or a CDATA section is no comment, yet is
/// taken for one. In the body, holding back too much only waits longer (the prolog, which libxml2 must get in one
/// piece, is never held back: ``PushParser``); what must not happen is that such a
/// false opening hides a real one, so the scan goes on just after each opening, not after the `-->` it found
/// for it: that `-->` may be the one inside a real `<!-->` further on (found by the `xml` fuzz target: a
/// processing instruction holding `<!-->` before the root element, then a comment `<!-->…-->` after it that a
/// chunk cut, failed).
enum CutHazards {
    /// How many leading bytes of `bytes` can go to libxml2 now; the rest waits for more bytes: a trailing
    /// `]`, `]]` or beginning of a comment, or everything from a comment opening `<!-->` or `<!--->` whose
    /// closing `-->` has not come.
    static func releasable(_ bytes: UnsafeRawBufferPointer) -> Int {
        let opening: [UInt8] = Array("<!--".utf8)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == 0x3C else { index += 1; continue }
            let available = min(opening.count, bytes.count - index)
            guard (0..<available).allSatisfy({ bytes[index + $0] == opening[$0] }) else { index += 1; continue }
            // `<!--` cut by the end of the bytes, or what follows it not there yet.
            let next = index + 4
            guard next < bytes.count else { return index }
            let contentStart: Int
            if bytes[next] == 0x3E {
                contentStart = next + 1          // `<!-->`: libxml2 takes its `-->` for the end
            } else if bytes[next] == 0x2D, next + 1 == bytes.count {
                return index                     // `<!---`, which may be `<!--->`
            } else if bytes[next] == 0x2D, bytes[next + 1] == 0x3E {
                contentStart = next + 2          // `<!--->`
            } else {
                index = next
                continue
            }
            guard closing(in: bytes, from: contentStart) != nil else { return index }
            // Each opening's search ends at the first `-->`, and every opening holds one, so this stays linear.
            index = contentStart
        }
        var end = bytes.count
        while end > 0, bytes.count - end < 2, bytes[end - 1] == 0x5D { end -= 1 }
        return end
    }

    private static let arrowOpening: [UInt8] = Array("<!-->".utf8)
    private static let longArrowOpening: [UInt8] = Array("<!--->".utf8)

    /// Whether bytes held back start with a comment opening `<!-->` or `<!--->` (as ``releasable(_:)`` holds
    /// one back only while no `-->` follows it, such bytes hold none after the opening).
    static func isOpenComment(_ held: [UInt8]) -> Bool {
        held.starts(with: arrowOpening) || held.starts(with: longArrowOpening)
    }

    /// Whether `-->` is in `tail` (the last two bytes held) followed by `next`, that is, in `next` or across the
    /// boundary. `tail` may reach into the opening itself: then this can say yes for no real closing, which only
    /// costs a rescan.
    static func holdsClosing(_ tail: ArraySlice<UInt8>, _ next: UnsafeRawBufferPointer) -> Bool {
        var twoBack: UInt8 = 0, oneBack: UInt8 = 0
        for byte in tail { (twoBack, oneBack) = (oneBack, byte) }
        for byte in next {
            if byte == 0x3E, oneBack == 0x2D, twoBack == 0x2D { return true }
            (twoBack, oneBack) = (oneBack, byte)
        }
        return false
    }

    /// The index just past the first `-->` at or after `start`.
    private static func closing(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index + 2 < bytes.count {
            if bytes[index] == 0x2D, bytes[index + 1] == 0x2D, bytes[index + 2] == 0x3E { return index + 3 }
            index += 1
        }
        return nil
    }
}
