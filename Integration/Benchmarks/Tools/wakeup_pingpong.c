// What waking a sleeping thread costs on this machine: two threads hand a turn back and forth N times, each
// sleeping on a futex until the turn is its own, and the program prints the time of one round trip and how many
// times a thread actually slept per round trip (2.00 when every hand-over woke a sleeping thread).
// With SPIN_US > 0 a thread first spins that long before it sleeps, as Courier's curl thread polls before it sleeps:
// then neither thread sleeps while the other answers within the window, and the round trip is what handing over
// costs without a wake-up. A hand-over makes the wake-up system call only when the other thread said it sleeps.
//
// Build: cc -O2 -o wakeup_pingpong wakeup_pingpong.c -lpthread
// Run:   wakeup_pingpong 200000 0; wakeup_pingpong 200000 50
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static _Atomic int turn = 0;
// Threads inside (or about to enter) FUTEX_WAIT: a hand-over skips the wake-up call when none is.
static _Atomic int sleepers = 0;
// FUTEX_WAIT calls that slept and were woken (not those that found the turn already changed).
static _Atomic long slept = 0;
static long rounds;
static int spin_us;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// Returns once `turn` is `mine`: spins up to spin_us, then sleeps on the futex until woken with the turn.
static void wait_for(int mine) {
    double until = now() + spin_us / 1e6;
    while (atomic_load(&turn) != mine) {
        if (spin_us && now() < until) continue;
        atomic_fetch_add(&sleepers, 1);
        // Sequentially consistent with hand_to: either it sees this thread as a sleeper and wakes it, or this
        // thread sees the new turn here (or the kernel does, and FUTEX_WAIT returns EAGAIN at once).
        int seen = atomic_load(&turn);
        if (seen != mine && syscall(SYS_futex, &turn, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0) == 0) {
            atomic_fetch_add(&slept, 1);
        }
        atomic_fetch_sub(&sleepers, 1);
    }
}

static void hand_to(int other) {
    atomic_store(&turn, other);
    if (atomic_load(&sleepers) > 0) syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *answer(void *unused) {
    (void)unused;
    for (long i = 0; i < rounds; i++) {
        wait_for(1);
        hand_to(0);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: wakeup_pingpong ROUNDS [SPIN_US]\n");
        return 2;
    }
    rounds = atol(argv[1]);
    spin_us = argc > 2 ? atoi(argv[2]) : 0;
    pthread_t thread;
    pthread_create(&thread, NULL, answer, NULL);
    double start = now();
    for (long i = 0; i < rounds; i++) {
        hand_to(1);
        wait_for(0);
    }
    double seconds = now() - start;
    pthread_join(thread, NULL);
    printf("spin %d µs: %.2f µs a round trip, %.2f sleeps a round trip\n", spin_us, seconds / rounds * 1e6,
           (double)atomic_load(&slept) / rounds);
    return 0;
}
