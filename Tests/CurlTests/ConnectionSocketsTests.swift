@testable import CourierCurl
import Testing

/// The table behind "an idle HTTP/1 connection with bytes waiting is not reused", without sockets: which socket
/// a reused connection is, and when the table must not say.
@Suite("Connection sockets")
struct ConnectionSocketsTests {
    private func ends(_ local: UInt16, remote: UInt16 = 80, address: UInt64 = 0x0100_007F) -> ConnectionSockets.Endpoints {
        ConnectionSockets.Endpoints(localPort: local, remotePort: remote, remoteAddressHigh: address, remoteAddressLow: 0)
    }

    @Test func anHTTP1ConnectionIsCheckedOnceItsExchangeEnded() {
        var table = ConnectionSockets()
        table.opened(7)
        #expect(table.socketToCheck(reusing: ends(5000)) == nil, "nothing known before an exchange ends")
        table.exchangeEnded(on: ends(5000), http1: true) { 7 }
        #expect(table.socketToCheck(reusing: ends(5000)) == 7)
        #expect(table.socketToCheck(reusing: ends(5001)) == nil)
        #expect(table.socketToCheck(reusing: ends(5000, remote: 443)) == nil)
        #expect(table.socketToCheck(reusing: ends(5000, address: 0x0200_007F)) == nil, "the same ports to another address")
    }

    @Test func theSocketIsAskedForOncePerConnection() {
        var table = ConnectionSockets()
        table.opened(7)
        var asked = 0
        for _ in 1...3 { table.exchangeEnded(on: ends(5000), http1: true) { asked += 1; return 7 } }
        #expect(asked == 1)
    }

    @Test func anHTTP2ConnectionIsNeverChecked() {
        var table = ConnectionSockets()
        table.opened(7)
        var asked = false
        table.exchangeEnded(on: ends(5000), http1: false) { asked = true; return 7 }
        #expect(!asked && table.socketToCheck(reusing: ends(5000)) == nil)
        // An HTTP/1 exchange first (an upgrade, say), then HTTP/2 ones: the connection is taken out.
        table.exchangeEnded(on: ends(5002), http1: true) { 7 }
        table.exchangeEnded(on: ends(5002), http1: false) { 7 }
        #expect(table.socketToCheck(reusing: ends(5002)) == nil)
    }

    @Test func aSocketLibcurlDidNotOpenOrOneMatchedElsewhereIsNotTaken() {
        var table = ConnectionSockets()
        table.exchangeEnded(on: ends(5000), http1: true) { 9 }
        #expect(table.socketToCheck(reusing: ends(5000)) == nil, "never opened")
        table.opened(7)
        table.exchangeEnded(on: ends(5000), http1: true) { nil }
        #expect(table.socketToCheck(reusing: ends(5000)) == nil, "no socket named")
        table.exchangeEnded(on: ends(5000), http1: true) { 7 }
        table.exchangeEnded(on: ends(5001), http1: true) { 7 }
        #expect(table.socketToCheck(reusing: ends(5000)) == 7)
        #expect(table.socketToCheck(reusing: ends(5001)) == nil, "7 already has its ends")
    }

    @Test func aClosedSocketIsForgottenEvenWhenItsNumberComesBack() {
        var table = ConnectionSockets()
        table.opened(7)
        table.exchangeEnded(on: ends(5000), http1: true) { 7 }
        table.closed(7)
        #expect(table.socketToCheck(reusing: ends(5000)) == nil)
        #expect(table.counts.open == 0 && table.counts.matched == 0)
        // The system gives 7 to the next connection: it is matched afresh.
        table.opened(7)
        #expect(table.socketToCheck(reusing: ends(5000)) == nil)
        table.exchangeEnded(on: ends(6000), http1: true) { 7 }
        #expect(table.socketToCheck(reusing: ends(6000)) == 7 && table.socketToCheck(reusing: ends(5000)) == nil)
        // A close the table missed: a new `opened` of the same number drops the old ends.
        table.opened(7)
        #expect(table.socketToCheck(reusing: ends(6000)) == nil)
    }

    @Test func aRetiredSocketIsNotCheckedAgain() {
        var table = ConnectionSockets()
        table.opened(7)
        table.exchangeEnded(on: ends(5000), http1: true) { 7 }
        table.retire(7)
        #expect(table.socketToCheck(reusing: ends(5000)) == nil)
        #expect(table.counts.open == 1, "open until libcurl closes it")
        table.closed(7)
        #expect(table.counts.open == 0)
    }

    /// A connection a head condemned stays so until its exchange is over, whether or not its socket is matched.
    @Test func aCondemnedConnectionStaysSoUntilReleased() {
        var table = ConnectionSockets()
        table.opened(7)
        #expect(!table.isCondemned(ends(5000)))
        table.condemn(ends(5000))
        #expect(table.isCondemned(ends(5000)))
        #expect(!table.isCondemned(ends(5001)) && !table.isCondemned(ends(5000, remote: 81)))
        #expect(table.openSockets == [7])
        table.exchangeEnded(on: ends(5000), http1: true) { 7 }
        #expect(table.socketToCheck(reusing: ends(5000)) == 7, "matched as any HTTP/1 connection, to be shut down")
        table.release(ends(5000))
        #expect(!table.isCondemned(ends(5000)))
    }

    @Test func idleSocketsAreTheMatchedOnesNoTransferHolds() {
        var table = ConnectionSockets()
        for (socket, port) in [(7, 5000), (8, 5001), (9, 5002)] as [(Int32, UInt16)] {
            table.opened(socket)
            table.exchangeEnded(on: ends(port), http1: true) { socket }
        }
        table.opened(10)  // a connection whose first exchange has not ended: not matched, never swept
        #expect(Set(table.idleSockets(notHeldBy: [])) == [7, 8, 9])
        #expect(Set(table.idleSockets(notHeldBy: [ends(5001)])) == [7, 9])
        table.retire(7)
        #expect(Set(table.idleSockets(notHeldBy: [ends(5001)])) == [9])
    }

    @Test func endpointsFromLibcurlsText() {
        func ends(_ address: String?, _ remote: Int32 = 8080, _ local: Int32 = 40000) -> ConnectionSockets.Endpoints? {
            guard let address else { return ConnectionSockets.Endpoints(remoteAddress: nil, remotePort: remote, localPort: local) }
            return address.withCString { ConnectionSockets.Endpoints(remoteAddress: $0, remotePort: remote, localPort: local) }
        }
        let v4 = ends("127.0.0.1")
        #expect(v4?.localPort == 40000 && v4?.remotePort == 8080)
        #expect(v4 == ends("127.0.0.1") && v4 != ends("127.0.0.2") && v4 != ends("127.0.0.1", 8081) && v4 != ends("127.0.0.1", 8080, 40001))
        // Whole up to 16 bytes, hashed beyond: every case still tells two addresses apart.
        let addresses = ["::1", "255.255.255.255", "1234:5678:9abc::1", "2001:db8:85a3:8d3:1319:8a2e:370:7348",
                         "2001:db8:85a3:8d3:1319:8a2e:370:7349", "fe80::1", "fe80::2"]
        let all = addresses.compactMap { ends($0) }
        #expect(all.count == addresses.count && Set(all).count == addresses.count)
        #expect(ends("2001:db8:85a3:8d3:1319:8a2e:370:7348") == ends("2001:db8:85a3:8d3:1319:8a2e:370:7348"))
        // A Unix socket (no ports), no address, ports out of range.
        #expect(ends("/run/app.sock", 0, 0) == nil)
        #expect(ends("") == nil && ends(nil) == nil)
        #expect(ends("127.0.0.1", 70000) == nil && ends("127.0.0.1", 80, 0) == nil)
    }
}
