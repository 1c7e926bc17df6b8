@testable import CourierCurl
import Testing

/// The handles kept while a connection may hold their address (`CurlMultiLoop+QueuedRequests.swift`), without
/// sockets: each goes once every connection that may hold it has closed, or answered a request given it after the
/// handle was kept, and not before; one whose connection can no longer be told stays to the end.
@Suite("Parked handles")
struct ParkedHandlesTests {
    @Test func handlesGoWhenTheirOwnConnectionCloses() {
        var parked = ParkedHandles<String, String>()
        #expect(parked.isEmpty && parked.count == 0)
        #expect(parked.park("a", grants: 1, on: [(7, "x")]) == 1)
        #expect(parked.park("b", grants: 2, on: [(7, "x")]) == 2)
        #expect(parked.park("c", grants: 2, on: [(9, "y")]) == 1)
        #expect(parked.count == 3 && !parked.isEmpty)
        #expect(parked.closed(8) == [], "another socket closing frees nothing")
        #expect(parked.closed(7) == ["a", "b"])
        #expect(parked.count == 1)
        #expect(parked.closed(7) == [], "a socket's handles are given once")
        #expect(parked.answered(on: "x", grant: 10) == [], "the closed connection's ends are forgotten")
        #expect(parked.park("d", grants: 3, on: [(7, "z")]) == 1, "a number given again is another connection")
        #expect(Set(parked.removeAll()) == ["c", "d"])
        #expect(parked.isEmpty && parked.closed(9) == [])
    }

    @Test func aHeadOnALaterRequestOfTheConnectionFreesTheHandlesKeptBeforeIt() {
        var parked = ParkedHandles<String, String>()
        _ = parked.park("a", grants: 4, on: [(7, "x")])
        _ = parked.park("b", grants: 6, on: [(7, "x")])
        _ = parked.park("c", grants: 6, on: [(9, "y")])
        #expect(parked.answered(on: "x", grant: 4) == [], "given the connection before any was kept")
        #expect(parked.answered(on: "y", grant: 5) == [], "another connection's handles stay")
        #expect(parked.answered(on: "x", grant: 5) == ["a"], "given it after the first was kept, before the second")
        #expect(parked.answered(on: "x", grant: 7) == ["b"])
        #expect(parked.answered(on: "x", grant: 8) == [])
        #expect(parked.closed(7) == [], "nothing left for the socket")
        #expect(parked.count == 1 && parked.answered(on: "y", grant: 7) == ["c"] && parked.isEmpty)
    }

    @Test func aHandleTwoConnectionsMayHoldGoesWhenBothAreDone() {
        var parked = ParkedHandles<String, String>()
        #expect(parked.park("a", grants: 3, on: [(7, "x"), (9, "y")]) == 1)
        #expect(parked.count == 1)
        #expect(parked.closed(7) == [], "the other connection may still hold it")
        #expect(parked.answered(on: "y", grant: 4) == ["a"])
        #expect(parked.isEmpty && parked.closed(9) == [])
    }

    @Test func handlesWhoseConnectionCannotBeToldStayToTheEnd() {
        var parked = ParkedHandles<String, String>()
        _ = parked.park("a", grants: 1, on: [(7, "x"), (9, "w")])
        // The number now names a connection with other ends: whether "a"'s connection let go of it is unknown.
        #expect(parked.park("b", grants: 2, on: [(7, "y")]) == 1)
        #expect(parked.answered(on: "x", grant: 9) == [])
        #expect(parked.closed(9) == [], "its other connection closing does not free it either")
        #expect(parked.closed(7) == ["b"])
        parked.strand("c")  // a connection without ends
        #expect(parked.count == 2 && !parked.isEmpty)
        #expect(parked.answered(on: "y", grant: 9) == [] && parked.closed(7) == [])
        #expect(Set(parked.removeAll()) == ["a", "c"])
        #expect(parked.isEmpty && parked.count == 0)
    }
}
