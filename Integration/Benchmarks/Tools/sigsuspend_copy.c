// Lets Swift programs run under Valgrind 3.19: Swift's async `main` ends in libdispatch's `dispatch_main`, whose
// main thread waits in `sigsuspend` with a mask in read-only memory, and Valgrind's handler of that system call
// writes to the mask where it lies, which kills Valgrind with SIGSEGV. LD_PRELOAD this library and `sigsuspend`
// passes a copy of the mask instead; nothing else changes.
//
// Build: cc -O2 -shared -fPIC -o sigsuspend_copy.so sigsuspend_copy.c
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    // The kernel's sigset is 8 bytes on Linux (64 signals), not glibc's 128-byte sigset_t.
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}
