#!/bin/bash
# time_build.sh: item 7 of the performance appendix. Times a cold `bazel test //...` (a fresh
# clone, a fresh output base, no disk cache) and then an incremental rebuild-and-test of one
# stage after touching one .cc, and writes the two times as a markdown table.
#
#   tools/time_build.sh [OUT_FILE]   default: chapters/appendix_performance/build_times.inc
#
# Expensive (the whole build from nothing): run it once, on a quiet machine.
set -euo pipefail
if [ $# -gt 1 ]; then
  echo "time_build.sh: unexpected argument '$2'; usage: time_build.sh [OUT_FILE]" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
repo=$(pwd)
out=${1:-$repo/chapters/appendix_performance/build_times.inc}
LOAD_BEFORE=$(cut -d" " -f1-3 /proc/loadavg)
work=$(mktemp -d /tmp/mts-cold.XXXXXX)
trap 'bazel --output_base="$work/ob" shutdown >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

git clone --quiet "$repo" "$work/src"
cd "$work/src"
stage_cc=src/05_recoverable/recoverable_session.cc
stage_tests=//tests/05_recoverable/...

now() { date +%s.%N; }
t0=$(now)
bazel --output_base="$work/ob" test --disk_cache= --profile="$work/cold.profile.gz" //... \
  >"$work/cold.log" 2>&1 ||
  { tail -30 "$work/cold.log"; exit 1; }
t1=$(now)
echo "// touched" >>"$stage_cc"
t2=$(now)
bazel --output_base="$work/ob" test --disk_cache= "$stage_tests" >"$work/incr.log" 2>&1 ||
  { tail -30 "$work/incr.log"; exit 1; }
t3=$(now)

cold=$(echo "$t1 - $t0" | bc)
incr=$(echo "$t3 - $t2" | bc)
tests=$(grep -c "PASSED\|cached" "$work/cold.log" || true)
{
  echo "| build | wall time (s) |"
  echo "| --- | --- |"
  printf '| cold `bazel test //...` (fresh clone, new output base, no disk cache; %s targets passed) | %.0f |\n' "$tests" "$cold"
  printf '| touch `%s`, then `bazel test %s` | %.1f |\n' "$stage_cc" "$stage_tests" "$incr"
  echo
  echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores;" \
    "load average (1, 5, 15 min) before the cold build: $LOAD_BEFORE; after: $(cut -d" " -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d)."
  echo
  echo "The slowest actions of the cold build (Bazel's JSON profile, \`--profile\`), and the"
  echo "critical path Bazel reports:"
  echo
  /usr/bin/python3 "$repo/tools/slowest_actions.py" "$work/cold.profile.gz" 12
  echo
  echo "Critical path: $(sed -n 's/.*Critical Path: \([0-9.]*s\).*/\1/p' "$work/cold.log" | tail -1)."
} >"$out"
cat "$out"
