#!/usr/bin/env bash
# Measures how the order in which the tasks of distributed_spirals start changes the final
# loss: the table of chapter 07's section "Stale gradients".
#
#   tools/join_order_table.sh [RUNS]        # RUNS per row (default 20)
#
# Row "launcher": the launcher starts the ps, the chief and two workers at once, and the
# workers check for the model every 0.5 s. Row "workers first": the ps and workers 1 and 2
# start first, checking every 50 ms; the chief starts once both say they are waiting (as
# multi_process_test does). Both train 400 steps with Adam 0.02. Prints per row the number
# of runs, the steps at which the later worker joined, the runs whose largest final loss
# (over the three tasks) is above 0.1, and the largest final loss. For a loaded machine,
# run a few `while :; do :; done &` beside it.
set -euo pipefail

runs="${1:-20}"
if [ $# -gt 1 ] || ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "join_order_table.sh: usage: join_order_table.sh [RUNS], RUNS a whole number from 1" >&2
  exit 2
fi
cd "$(dirname "$0")/.."
bazel build //examples:distributed_spirals >/dev/null 2>&1
binary="$(bazel info bazel-bin 2>/dev/null)/examples/distributed_spirals"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# From the logs in $1: "<largest final loss> <step the later worker joined at>".
summarise() {
  local loss join
  loss=$(cat "$1"/* | grep 'done: global step' | sed 's/.*loss \([0-9.]*\).*/\1/' | sort -g | tail -1)
  join=$(cat "$1"/* | grep -v chief | grep 'session 1 ready at global step' |
    sed 's/.*step //' | sort -n | tail -1)
  echo "$loss $join"
}

launcher_run() {
  rm -rf "$scratch"/run && mkdir -p "$scratch"/run/logs
  timeout 120 "$binary" --train_steps=400 --save_steps=100 --log_every=50 \
    --checkpoint_dir="$scratch"/run/ckpt >"$scratch"/run/logs/all.log 2>&1
  summarise "$scratch"/run/logs
}

workers_first_run() {
  rm -rf "$scratch"/run && mkdir -p "$scratch"/run/logs
  local base=$((20000 + RANDOM % 30000))
  local flags=(--cluster="ps=127.0.0.1:$base;worker=127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
    --checkpoint_dir="$scratch"/run/ckpt --train_steps=400 --save_steps=100 --log_every=50
    --recovery_wait_secs=0.05)
  local logs="$scratch"/run/logs
  "$binary" --job_name=ps --task_index=0 "${flags[@]}" >"$logs"/ps.log 2>&1 &
  local ps=$!
  "$binary" --job_name=worker --task_index=1 "${flags[@]}" >"$logs"/worker1.log 2>&1 &
  local w1=$!
  "$binary" --job_name=worker --task_index=2 "${flags[@]}" >"$logs"/worker2.log 2>&1 &
  local w2=$!
  for _ in $(seq 1 600); do
    grep -q 'still waiting' "$logs"/worker1.log && grep -q 'still waiting' "$logs"/worker2.log && break
    sleep 0.05
  done
  timeout 120 "$binary" --job_name=worker --task_index=0 "${flags[@]}" >"$logs"/worker0.log 2>&1 || true
  wait "$w1" "$w2" || true
  kill -9 "$ps" 2>/dev/null || true
  wait "$ps" 2>/dev/null || true
  summarise "$logs"
}

row() {
  local name="$1" run="$2" above=0 largest=0 first=999999 last=0 loss join
  for _ in $(seq 1 "$runs"); do
    read -r loss join < <("$run")
    awk "BEGIN { exit !($loss > 0.1) }" && above=$((above + 1))
    awk "BEGIN { exit !($loss > $largest) }" && largest=$loss
    ((join < first)) && first=$join
    ((join > last)) && last=$join
  done
  echo "$name: $runs runs, workers joined at step $first to $last, final loss above 0.1 in $above, largest $largest"
}

row "launcher, poll every 0.5 s" launcher_run
row "workers first, poll every 50 ms" workers_first_run
