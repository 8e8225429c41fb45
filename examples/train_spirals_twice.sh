#!/bin/sh
# Runs train_spirals twice in one fresh checkpoint directory, as a user would: the first run
# trains to step 200, the second resumes from its checkpoint and goes on to step 400. The
# book shows what both printed (examples/BUILD, train_spirals_output).
# Usage: train_spirals_twice.sh path/to/train_spirals
set -eu
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
cd "$workdir"
for steps in 200 400; do
  echo "\$ bazel run //examples:train_spirals -- --steps=$steps --checkpoint_dir=run"
  "$binary" --steps="$steps" --checkpoint_dir=run
  echo
done
