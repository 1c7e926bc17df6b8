#!/usr/bin/env bash
# Builds courier-fuzz (every fuzz target of Tests/Fuzz in one libFuzzer binary, with AddressSanitizer) and runs
# the targets. Each target starts from its committed seeds (Tests/Fuzz/Corpus/<target>/, regression inputs
# included), keeps what it discovers in .build-fuzz/corpus/<target>/ (never in git), and fails the script on a
# crash, a leak, a time-out or an out-of-memory, leaving the input in .build-fuzz/artifacts/<target>/.
#
# Usage: Scripts/fuzz.sh [TARGET...] [--seconds N] [--runs N] [--seed S] [--parallel P] [--list] [--no-build]
#   TARGET        targets to run (default: all, in the order of Tests/Fuzz/Sources/FuzzTarget.swift)
#   --seconds N   time per target (default 60); --runs N instead stops each after N executions
#   --seed S      libFuzzer's random seed (default: a new one each run); with it, and Swift's hashing made
#                 deterministic, a run replays the same inputs in the same order, as far as its time goes
#   --replay-only T  target T only replays its committed corpus (no new inputs): for a target with an open
#                 finding, so the regression check stays green while the finding is worked on (repeatable)
#   --parallel P  targets run side by side (default 2, one per core)
#   --leaks-at-exit  LeakSanitizer checks once, when a target's run ends, instead of after every input that
#                 allocated more than it freed: up to twice the executions for the allocation-heavy targets in
#                 a long run; a leak still fails the run, but its input must then be found by replaying the corpus
#   --list        prints the target names and exits
# Each target's libFuzzer log is .build-fuzz/logs/<target>.log; the last line of each is summarised at the end.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
cd "$COURIER_ROOT"

seconds=60
runs=""
seed=""
replay_only=()
parallel=2
build=1
leaks_at_exit=0
list=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --seconds) seconds="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --replay-only) replay_only+=("$2"); shift 2 ;;
        --parallel) parallel="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --leaks-at-exit) leaks_at_exit=1; shift ;;
        --list) list=1; shift ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) targets+=("$1"); shift ;;
    esac
done

ensure_swift

all_targets=()
while IFS= read -r name; do all_targets+=("$name"); done < <(
    grep -hE '^\s+static let name = "' Tests/Fuzz/Sources/Targets/*.swift | sed -E 's/.*"([^"]+)".*/\1/' |
    while IFS= read -r name; do echo "$name"; done)
if [ "$list" = 1 ]; then printf '%s\n' "${all_targets[@]}"; exit 0; fi
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
    printf '%s\n' "${all_targets[@]}" | grep -qx "$target" || die "no fuzz target '$target' (--list shows them)"
done

# Every C library a target of the package links: courier-fuzz builds the Cookies module too (libpsl).
ensure_apt_packages "${COURIER_LIBRARY_PACKAGES[@]}"

SCRATCH="$COURIER_ROOT/.build-fuzz"
if [ "$build" = 1 ]; then
    mkdir -p "$SCRATCH"
    log "building courier-fuzz (libFuzzer + AddressSanitizer, $SCRATCH)"
    lock=()
    [ -n "${COURIER_BUILD_LOCK:-}" ] && lock=(flock "$COURIER_BUILD_LOCK")
    # Optimized, as OSS-Fuzz builds: unspecialized generics in a debug build ran the decoding target ~75 times
    # slower. -enable-testing keeps the targets' @testable imports working; preconditions stay on in -O.
    COURIER_FUZZ=1 "${lock[@]}" swift build -c release --product courier-fuzz --scratch-path "$SCRATCH" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DCOURIER_FUZZING -Xswiftc -enable-testing >"$SCRATCH/build.log" 2>&1 \
        || { grep -E "error:" "$SCRATCH/build.log" | head -30 >&2; die "building courier-fuzz failed (log: $SCRATCH/build.log)"; }
fi
binary="$(COURIER_FUZZ=1 swift build -c release --product courier-fuzz --scratch-path "$SCRATCH" --show-bin-path)/courier-fuzz"
[ -x "$binary" ] || die "$binary is missing (run without --no-build)"

mkdir -p "$SCRATCH/logs"
# The Swift runtime's backtracer would hold a crashing process for seconds; libFuzzer reports the crash itself.
export SWIFT_BACKTRACE=enable=no
# With --seed, Swift's per-process hash seed must not vary either (dictionary order steers coverage).
[ -n "$seed" ] && export SWIFT_DETERMINISTIC_HASHING=1
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:${ASAN_OPTIONS:-}"

# run_target NAME: one target, its exit status the script's verdict for it.
run_target() {
    local target="$1"
    local seeds="$COURIER_ROOT/Tests/Fuzz/Corpus/$target"
    local corpus="$SCRATCH/corpus/$target" artifacts="$SCRATCH/artifacts/$target/"
    mkdir -p "$corpus" "$artifacts" "$seeds"
    local limit=(-max_total_time="$seconds")
    [ -n "$runs" ] && limit=(-runs="$runs")
    if printf '%s\n' "${replay_only[@]}" | grep -qx "$target"; then
        # Given files (not folders), libFuzzer runs each once and stops.
        COURIER_FUZZ_TARGET="$target" "$binary" -timeout=10 -rss_limit_mb=2048 "$seeds"/* >"$SCRATCH/logs/$target.log" 2>&1
        return
    fi
    local seeding=()
    [ -n "$seed" ] && seeding=(-seed="$seed")
    local leaks=()
    [ "$leaks_at_exit" = 1 ] && leaks=(-detect_leaks=0)
    local dictionary=()
    [ -f "Tests/Fuzz/Dictionaries/$target.dict" ] && dictionary=(-dict="Tests/Fuzz/Dictionaries/$target.dict")
    # -timeout: one input running 10 s is a hang; -rss_limit_mb: 2 GiB is a runaway allocation.
    COURIER_FUZZ_TARGET="$target" "$binary" "$corpus" "$seeds" "${limit[@]}" "${seeding[@]}" "${dictionary[@]}" "${leaks[@]}" \
        -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$artifacts" \
        >"$SCRATCH/logs/$target.log" 2>&1
}

budget="$seconds s"
[ -n "$runs" ] && budget="$runs runs"
log "fuzzing ${#targets[@]} targets, $budget each, $parallel at a time"
failed=()
pids=()
names=()
wait_one() {
    local pid="${pids[0]}" name="${names[0]}"
    pids=("${pids[@]:1}"); names=("${names[@]:1}")
    # A leak found at exit (--leaks-at-exit) fails the process too; the grep is for a runner that hides it.
    if wait "$pid" && ! grep -q "ERROR: LeakSanitizer" "$SCRATCH/logs/$name.log"; then
        local executions
        executions="$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$SCRATCH/logs/$name.log" | grep -oE '[0-9]+$' || echo '?')"
        printf '  %-22s ok   %12s executions, corpus %s files\n' "$name" "$executions" "$(ls "$SCRATCH/corpus/$name" | wc -l)" >&2
    else
        failed+=("$name")
        printf '  %-22s FAILED (log: %s)\n' "$name" "$SCRATCH/logs/$name.log" >&2
        grep -E "ERROR|SUMMARY|Test unit written|Fatal error|precondition|panic" "$SCRATCH/logs/$name.log" | head -12 >&2 || true
    fi
}
for target in "${targets[@]}"; do
    [ ${#pids[@]} -ge "$parallel" ] && wait_one
    run_target "$target" &
    pids+=($!); names+=("$target")
done
while [ ${#pids[@]} -gt 0 ]; do wait_one; done

[ ${#failed[@]} -eq 0 ] || die "fuzz targets failed: ${failed[*]} (inputs in $SCRATCH/artifacts/)"
log "fuzzing passed"
