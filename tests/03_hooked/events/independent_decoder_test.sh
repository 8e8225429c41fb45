#!/bin/sh
# independent_decoder_test.sh: an event file written by mts's FileWriter decodes, record by
# record, with decode_events.py, a decoder that shares no code with mts (its own framing and
# CRC-32C, its own Event/Summary/SessionLog descriptors for Debian's python3-protobuf, the
# field numbers from the format reference). The same decoder reads TensorFlow's own files
# first, so a disagreement would point at mts, not at the decoder.
set -eu

python=/usr/bin/python3
decode=tests/03_hooked/events/decode_events.py
goldens=tests/03_hooked/events/testdata
out="${TEST_TMPDIR:-/tmp}/independent_decoder_test"
rm -rf "$out"
mkdir -p "$out"

# 1. The decoder on TensorFlow 1.x's files: every record of all three re-encodes to the same
#    bytes (the decoder exits non-zero otherwise) and the record counts are SOURCES.md's; the
#    restart file prints exactly the table in tests/testdata/tfevents/SOURCES.md.
testdata=tests/testdata/tfevents
expect_records() {
  "$python" "$decode" "$testdata/$1" > "$out/$1.txt"
  test "$(wc -l < "$out/$1.txt")" -eq "$2" || { echo "FAIL: $1: not $2 records"; exit 1; }
}
expect_records tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents 34
expect_records tfiris-tf1.8-estimator-dnn-histograms.tfevents 11
expect_records disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents 8
diff -u "$goldens/disttftrain_decoded.golden" \
  "$out/disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents.txt"

# 2. A file mts writes: its name, first record and every event, against the golden dump.
file=$(tests/03_hooked/events/write_example_events "$out/logdir")
test "$(dirname "$file")" = "$out/logdir"
"$python" "$decode" --check-name "$file" > "$out/mts.txt"
diff -u "$goldens/write_example_events_decoded.golden" "$out/mts.txt"

echo "PASS: independent decoder agrees with TensorFlow's files and with mts's"
