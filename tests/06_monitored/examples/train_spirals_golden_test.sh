#!/bin/bash
# The main example's output, checked against a transcript: three runs in one checkpoint
# directory. The first trains from scratch to step 200, the second resumes from the
# checkpoint at step 200 (and says so) and goes on to 400, the third finds nothing to do and
# writes nothing.
# Losses and accuracies are deterministic (seeded), so they stay in the transcript; speeds
# and the temporary directory are masked. To update the transcript after a deliberate
# change, run this test and copy the "actual" file it names into train_spirals_golden.txt.
set -euo pipefail

runfiles="$TEST_SRCDIR/$TEST_WORKSPACE"
binary="$runfiles/examples/train_spirals"
golden="$runfiles/tests/06_monitored/examples/train_spirals_golden.txt"
dir="$TEST_TMPDIR/run"
rm -rf "$dir"

raw="$TEST_TMPDIR/raw.txt"
: >"$raw"
# Every file of the directory with its size, time and contents' checksum.
listing() { (cd "$dir" && for f in *; do echo "$f $(stat -c '%s %Y.%y' "$f") $(cksum < "$f")"; done); }
run=0
for steps in 200 400 400; do
  run=$((run + 1))
  [ "$run" -eq 3 ] && listing >"$TEST_TMPDIR/before.txt"
  echo "\$ train_spirals --steps=$steps --log_every=50 --checkpoint_dir=$dir" >>"$raw"
  status=0
  "$binary" --steps="$steps" --log_every=50 --checkpoint_dir="$dir" \
    >>"$raw" 2>"$TEST_TMPDIR/stderr_$run.txt" || status=$?
  echo "(exit status $status)" >>"$raw"
done

actual="${TEST_UNDECLARED_OUTPUTS_DIR:-$TEST_TMPDIR}/actual.txt"
sed -E -e "s|$TEST_TMPDIR|<tmp>|g" -e 's/[0-9]+ steps\/sec/N steps\/sec/g' "$raw" >"$actual"
if ! diff -u "$golden" "$actual"; then
  echo "FAIL: the output differs from $golden (the actual output is in $actual)"
  exit 1
fi

# What the example says must be what happened: the second run restored that checkpoint.
if ! grep -q "Restoring parameters from $dir/model.ckpt-200" "$TEST_TMPDIR/stderr_2.txt"; then
  echo "FAIL: the second run did not log restoring $dir/model.ckpt-200:"
  cat "$TEST_TMPDIR/stderr_2.txt"
  exit 1
fi
# The third run had nothing to train, and wrote nothing (issue 32, item 19): no checkpoint,
# state file, graph.pbtxt or event file was rewritten or added.
listing >"$TEST_TMPDIR/after.txt"
if ! diff -u "$TEST_TMPDIR/before.txt" "$TEST_TMPDIR/after.txt"; then
  echo "FAIL: the run with nothing to train changed $dir"
  exit 1
fi
echo "PASS"
