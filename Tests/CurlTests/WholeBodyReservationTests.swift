@testable import CourierCurl
import Testing

@Suite("Whole-body reservation")
struct WholeBodyReservationTests {
    @Test func aNewTransportReservesNothing() {
        #expect(WholeBodyReservation().capacity(limit: 1 << 20) == 0)
    }

    @Test func theReservationIsTheLastWholeBodyRoundedUpToTheGranule() {
        let granule = WholeBodyReservation.granule
        #expect(WholeBodyReservation.reservation(forBodyOf: 1) == granule)
        #expect(WholeBodyReservation.reservation(forBodyOf: 600) == 2 * granule, "600 bytes and a few more fit")
        #expect(WholeBodyReservation.reservation(forBodyOf: granule) == granule)
        #expect(WholeBodyReservation.reservation(forBodyOf: granule + 1) == 2 * granule)
        #expect(WholeBodyReservation.reservation(forBodyOf: WholeBodyReservation.largest) == WholeBodyReservation.largest)
    }

    @Test func anEmptyBodyOrOneLargerThanTheLargestReservesNothing() {
        #expect(WholeBodyReservation.reservation(forBodyOf: 0) == 0)
        #expect(WholeBodyReservation.reservation(forBodyOf: WholeBodyReservation.largest + 1) == 0)
        #expect(WholeBodyReservation.reservation(forBodyOf: Int.max) == 0, "no overflow in the rounding")
    }

    @Test func eachBodyReplacesTheGuessAndAStreamedOneClearsIt() {
        let reservation = WholeBodyReservation()
        reservation.arrivedWhole(count: 600)
        #expect(reservation.capacity(limit: 1 << 20) == 1024)
        reservation.arrivedWhole(count: 5000)
        #expect(reservation.capacity(limit: 1 << 20) == 5120, "the last body, not the largest")
        reservation.arrivedWhole(count: 100)
        #expect(reservation.capacity(limit: 1 << 20) == 512)
        reservation.streamed()
        #expect(reservation.capacity(limit: 1 << 20) == 0)
    }

    @Test func theCapacityNeverPassesTheTransportsResponseBuffer() {
        let reservation = WholeBodyReservation()
        reservation.arrivedWhole(count: 9000)
        #expect(reservation.capacity(limit: 4096) == 4096, "a body past the response buffer streams anyway")
        #expect(reservation.capacity(limit: 0) == 0)
    }
}
