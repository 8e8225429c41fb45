#!/bin/bash
# run_benchmarks.sh: builds every benchmark under tests/benchmarks (optimised), runs each,
# and prints the table of the performance appendix: each measurement, its target, whether
# the target is met. The same table is written to a file the appendix includes.
#
#   tools/run_benchmarks.sh [OUT_FILE]   default: chapters/appendix_performance/results.inc
#
# Extra arguments for every binary go in BENCHMARK_ARGS (e.g. --benchmark_filter=Stack).
# The build uses the default flags, which compile for the vector instructions of this
# machine (see .bazelrc); BENCHMARK_CONFIG picks a config (BENCHMARK_CONFIG=portable).
set -euo pipefail
if [ $# -gt 1 ]; then
  echo "run_benchmarks.sh: unexpected argument '$2'; usage: run_benchmarks.sh [OUT_FILE]" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
out=${1:-chapters/appendix_performance/results.inc}
binaries=(overhead_benchmark train_benchmark checkpoint_benchmark queue_benchmark
  summary_image_benchmark)

config=${BENCHMARK_CONFIG-}
flags=${config:+--config=$config}
bazel build -c opt $flags "${binaries[@]/#///tests/benchmarks:}" >&2
json_dir=$(mktemp -d /tmp/mts-benchmarks.XXXXXX)
trap 'rm -rf "$json_dir"' EXIT
load_before=$(cut -d" " -f1-3 /proc/loadavg)
for b in "${binaries[@]}"; do
  echo "running $b ..." >&2
  MTS_MIN_LOG_LEVEL=2 "bazel-bin/tests/benchmarks/$b" --benchmark_format=json \
    --benchmark_out="$json_dir/$b.json" --benchmark_out_format=json ${BENCHMARK_ARGS:-} >/dev/null
done
machine="$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(uname -sr); built with ${flags:-the default flags (-march=native -mno-avx512f)}"
/usr/bin/python3 tools/benchmark_table.py --machine "$machine" \
  --load "$load_before / $(cut -d' ' -f1-3 /proc/loadavg)" \
  --commit "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src tests || echo '+changes')" \
  "$json_dir"/*.json | tee "$out"
