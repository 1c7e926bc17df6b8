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

    @Test func aBodyThatLeavesAGranuleOfItsRoomUnusedDoesNotFit() {
        let granule = WholeBodyReservation.granule
        #expect(WholeBodyReservation.fits(count: 600, reserved: 1024), "the last body's size again: 424 bytes spare")
        #expect(WholeBodyReservation.fits(count: 1024 - granule + 1, reserved: 1024))
        #expect(!WholeBodyReservation.fits(count: 1024 - granule, reserved: 1024), "a granule spare is copied out")
        #expect(!WholeBodyReservation.fits(count: 1, reserved: WholeBodyReservation.largest), "a byte after 16 KiB")
        #expect(!WholeBodyReservation.fits(count: 0, reserved: 1024), "a 204 after a body lets its room go")
        #expect(WholeBodyReservation.fits(count: 5000, reserved: 1024), "a body that outgrew its room grew as any buffer")
        #expect(WholeBodyReservation.fits(count: 0, reserved: 0) && WholeBodyReservation.fits(count: 70_000, reserved: 0))
    }

    @Test func theCapacityNeverPassesTheTransportsResponseBuffer() {
        let reservation = WholeBodyReservation()
        reservation.arrivedWhole(count: 9000)
        #expect(reservation.capacity(limit: 4096) == 4096, "a body past the response buffer streams anyway")
        #expect(reservation.capacity(limit: 0) == 0)
    }
}
