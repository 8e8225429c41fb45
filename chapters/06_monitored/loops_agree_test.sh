#!/usr/bin/env bash
# The raw loop and the monitored loop of chapter 06 train the same model to the same final
# loss, both leave checkpoints and an event file, and both resume: a second run starts at
# the last step and trains no further.
set -euo pipefail
here="${TEST_SRCDIR}/${TEST_WORKSPACE}/chapters/06_monitored"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
export MTS_MIN_LOG_LEVEL=2

raw="$("${here}/raw_loop" "${tmp}/raw" 2>/dev/null)"
monitored="$("${here}/monitored_loop" "${tmp}/monitored" 2>/dev/null)"
echo "raw:       ${raw}"
echo "monitored: ${monitored}"
[[ "${raw}" == "step 500  final loss "* ]] || { echo "raw loop did not reach step 500"; exit 1; }
[[ "${raw}" == "${monitored}" ]] || { echo "the loops disagree"; exit 1; }

for dir in raw monitored; do
  ls "${tmp}/${dir}"/model.ckpt-500 >/dev/null || { echo "${dir}: no final checkpoint"; exit 1; }
  ls "${tmp}/${dir}"/events.out.tfevents.* >/dev/null || { echo "${dir}: no event file"; exit 1; }
done

# Resumed at step 500, the raw loop trains nothing. The monitored loop runs one step more,
# as TensorFlow's does: StopAtStepHook only looks at the step after a run (from scratch it
# would print step 1).
again="$("${here}/raw_loop" "${tmp}/raw" 2>/dev/null)"
echo "raw, again:       ${again}"
[[ "${again}" == "step 500  final loss 0.000000" ]] || { echo "the raw loop did not resume"; exit 1; }
again="$("${here}/monitored_loop" "${tmp}/monitored" 2>/dev/null)"
echo "monitored, again: ${again}"
[[ "${again}" == "step 501  final loss "* ]] || { echo "the monitored loop did not resume"; exit 1; }
echo PASS
