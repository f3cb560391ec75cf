#!/usr/bin/env bash
# Unit tier: mvn install (compile, unit tests, bundles, .oar) with the log kept under target/, the failures shown,
# and one Surefire-style summary line summed over all modules printed last.
set -uo pipefail
root=${WISLICE_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
log=$root/onos-apps/target/test-fast.log
mkdir -p "$(dirname "$log")"
mvn -B -fae -f "$root/pom.xml" install > "$log" 2>&1
rc=$?
# Per-test failures and build errors, without the per-class noise.
grep -E '^\[ERROR\] (Tests run:|  |Failures:|Errors:|Failed to execute|.*\.java)|FAILURE|<<< FAIL' "$log" | head -60
grep -E '^\[INFO\] Reactor Summary|^\[INFO\] (WiSlice|wislice|BUILD)' "$log" | sed 's/\x1b\[[0-9;]*m//g' | tail -12
# Module totals are the "Tests run:" lines without "Time elapsed"; sum them into the final summary line.
grep -E '^\[(INFO|WARNING|ERROR)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' "$log" |
  awk -F'[:,] *' '{r+=$2; f+=$4; e+=$6; s+=$8} END {printf "Tests run: %d, Failures: %d, Errors: %d, Skipped: %d\n", r, f, e, s}'
# The install built everything `make build` would: its stamp spares the integration tier a second mvn install.
if [ $rc -eq 0 ]; then touch "$root/onos-apps/target/wislice-build.stamp"; else echo "test-fast FAILED (full log: $log)"; fi
exit $rc
