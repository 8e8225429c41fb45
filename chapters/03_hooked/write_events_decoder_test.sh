#!/bin/sh
# write_events_decoder_test.sh: the event file of the chapter's example (write_events.cc)
# decodes with tests/03_hooked/events/decode_events.py, a decoder that shares no code with mts: its
# own TFRecord framing and CRC-32C, its own descriptors for Debian's python3-protobuf. The
# file name and first record are checked (--check-name), every record must re-encode to the
# same bytes, and the steps and contents must be the ones the chapter shows. Wall times
# vary from run to run, so they are cut out before comparing.
set -eu

out="${TEST_TMPDIR:-/tmp}/write_events_decoder_test"
rm -rf "$out"
mkdir -p "$out/logdir"

chapters/03_hooked/write_events --logdir "$out/logdir" > "$out/reader.txt" 2> "$out/path.txt"
file=$(cat "$out/path.txt")
test "$(dirname "$file")" = "$out/logdir"

/usr/bin/python3 tests/03_hooked/events/decode_events.py --check-name "$file" > "$out/decoded.txt"
# "index | wall_time | step | content" without the wall time, nor the graph's size (which
# changes whenever an op gains an attribute).
cut -d '|' -f 1,3- "$out/decoded.txt" |
  sed -E 's/graph_def \([0-9]+ bytes\)/graph_def (N bytes)/' > "$out/decoded_no_time.txt"

cat > "$out/expected.txt" <<'END'
0 | 0 | file_version = "brain.Event:2"
1 | 0 | graph_def (N bytes)
2 | 1 | session_log status=START
3 | 1 | summary: `loss`=4.0; `weight`=3.0
4 | 3 | summary: `loss`=0.25; `weight`=1.5
5 | 5 | summary: `loss`=0.015625; `weight`=1.125
END
diff -u "$out/expected.txt" "$out/decoded_no_time.txt"

# Our own reader saw as many records as the independent one.
test "$(grep -c '^  [0-9]' "$out/reader.txt")" -eq "$(wc -l < "$out/decoded.txt")"

echo "PASS: the chapter's event file decodes independently, step by step and value by value"
