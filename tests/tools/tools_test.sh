#!/bin/sh
# tools_test.sh: the inspection tools as a user runs them. train_spirals trains twice into a
# fresh directory (the second run resumes), then inspect_checkpoint, inspect_events and
# plot_scalars read what it wrote; then a damaged checkpoint, a cut-short event file, and the
# usage errors. Each check that fails says which and exits 1.
set -u

train=examples/train_spirals
inspect_checkpoint=tools/inspect_checkpoint
inspect_events=tools/inspect_events
plot=tools/plot_scalars
work="${TEST_TMPDIR:-/tmp}/tools_test"
rm -rf "$work"
mkdir -p "$work"
run="$work/run"

fail() { echo "FAIL: $*"; exit 1; }
# expect STATUS FILE PATTERN...: the last command's status, and each grep -F pattern in FILE.
expect() {
  want="$1"; got="$2"; file="$3"; shift 3
  [ "$got" -eq "$want" ] || { cat "$file"; fail "exit status $got, not $want ($file)"; }
  for pattern in "$@"; do
    grep -qF -- "$pattern" "$file" || { cat "$file"; fail "'$pattern' not in $file"; }
  done
}

"$train" --steps=200 --checkpoint_dir="$run" > "$work/train1.txt" 2>&1 || fail "train_spirals"
"$train" --steps=400 --checkpoint_dir="$run" > "$work/train2.txt" 2>&1 || fail "train_spirals"

# 1. inspect_checkpoint: the directory means its newest checkpoint; the model's tensors and
#    Adam's slots, TensorFlow's dtype names; the verdict.
"$inspect_checkpoint" "$run" > "$work/c1.txt" 2>&1
expect 0 $? "$work/c1.txt" "Checkpoint $run/model.ckpt-400 (the newest in $run): 21 tensors" \
  "global_step (DT_INT64) []" "hidden1/w (DT_FLOAT) [2,32]" "hidden1/w/Adam (DT_FLOAT) [2,32]" \
  "logits/b (DT_FLOAT) [3]" "Every checksum holds: the header and index, and the data of all 21"
"$inspect_checkpoint" "$run/model.ckpt-200" --tensor_name=global_step > "$work/c2.txt" 2>&1
expect 0 $? "$work/c2.txt" "tensor_name:  global_step
200"
"$inspect_checkpoint" "$run" --all_tensors > "$work/c3.txt" 2>&1
expect 0 $? "$work/c3.txt" "tensor_name:  beta1_power" "tensor_name:  logits/w/Adam_1"
[ "$(grep -c '^tensor_name:' "$work/c3.txt")" -eq 21 ] || fail "--all_tensors: not 21 tensors"

# 2. inspect_events: two files (one per run), the example's three scalar tags over the steps
#    both runs covered, two STARTs, four graphs.
"$inspect_events" "$run" > "$work/e1.txt" 2>&1
expect 0 $? "$work/e1.txt" "Event files in $run: 2" "Session logs: START 2" \
  "Other events: file_version 2, graph_def 4"
#    The graph: the writer's at the first hook's Begin, CheckpointSaverHook's once the session
#    exists, in each run; the last one's nodes counted.
grep -qE "^Graph: [0-9]+ nodes \(the last graph_def, which TensorBoard draws\)\$" "$work/e1.txt" ||
  { cat "$work/e1.txt"; fail "no graph node count"; }
for tag in loss_1 accuracy_1 global_step/sec; do
  grep -qE "^$tag +scalar +[0-9]+ +[0-9]+ +3[0-9][0-9]\$" "$work/e1.txt" ||
    { cat "$work/e1.txt"; fail "no row for $tag ending at step 3xx"; }
done
#    The picture of the decision regions every 200 steps, with its size; the flags once per
#    run, with the second run's text.
grep -qE "^decision_regions/image +image +2 +200 +400  64x64\$" "$work/e1.txt" ||
  { cat "$work/e1.txt"; fail "no row for the decision regions' image"; }
grep -qE "^flags +text +2 +0 +200  6 strings, below\$" "$work/e1.txt" ||
  { cat "$work/e1.txt"; fail "no row for the flags' text"; }
expect 0 0 "$work/e1.txt" "Text flags at step 200:" "  --steps=400" "  --checkpoint_dir=$run" \
  "  --learning_rate=0.02" "  --image_every=200"
#    The same files through the independent decoder (tests/03_hooked/events), which knows
#    images, text tensors and their metadata and re-encodes every record to the same bytes;
#    then the newest picture opened with Debian's python3-pil, as a viewer would.
decoder=tests/03_hooked/events/decode_events.py
for f in "$run"/events.out.tfevents.*; do
  /usr/bin/python3 "$decoder" "$f" >> "$work/decoded.txt" 2>&1 || { cat "$work/decoded.txt"; fail "decode $f"; }
done
expect 0 0 "$work/decoded.txt" "\`decision_regions/image\`=image(64x64, colorspace=3, " \
  "\`flags\`=tensor(dtype=7, shape=[6], plugin='text', string_val=['--steps=400', "
/usr/bin/python3 - "$run" "$decoder" > "$work/pil.txt" 2>&1 <<'PY'
import glob, io, sys
sys.path.insert(0, sys.argv[2].rsplit("/", 1)[0])
import decode_events
from PIL import Image
last = None
for path in sorted(glob.glob(sys.argv[1] + "/events.out.tfevents.*")):
    data = open(path, "rb").read()
    for _, payload in decode_events.read_records(data, path):
        event = decode_events.Event()
        event.ParseFromString(payload)
        for value in event.summary.value:
            if value.WhichOneof("value") == "image":
                last = value.image.encoded_image_string
image = Image.open(io.BytesIO(last))
image.load()
print("PIL: %s %dx%d, %d colours" % (image.mode, image.width, image.height,
                                      len(image.getcolors(1 << 16))))
PY
expect 0 $? "$work/pil.txt" "PIL: RGB 64x64"

# 3. plot_scalars: a PNG and an SVG of the three tags; a tag that is not there.
"$plot" "$run" --output="$work/scalars.png" > "$work/p1.txt" 2>&1
expect 0 $? "$work/p1.txt" "3 tags (accuracy_1, global_step/sec, loss_1)"
[ "$(head -c 8 "$work/scalars.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] ||
  fail "scalars.png is not a PNG"
"$plot" "$run" --output="$work/scalars.svg" --tags=loss_1 > "$work/p2.txt" 2>&1
expect 0 $? "$work/p2.txt" "1 tags (loss_1)"
grep -q "<svg" "$work/scalars.svg" || fail "scalars.svg is not an SVG"
"$plot" "$run" --output="$work/x.png" --tags=nope > "$work/p3.txt" 2>&1
expect 1 $? "$work/p3.txt" "no scalar tagged nope in $run; it has: accuracy_1, global_step/sec"

# 4. Damage. The newest checkpoint with its last byte flipped (the data of its last tensor):
#    named, status 1. An event file cut short: reported, not fatal, the other file still read.
newest="$run/model.ckpt-400"
size=$(wc -c < "$newest")
printf '\377' | dd of="$newest" bs=1 seek=$((size - 1)) conv=notrunc 2>/dev/null
"$inspect_checkpoint" "$run" > "$work/d1.txt" 2>&1
expect 1 $? "$work/d1.txt" "logits/w/Adam_1 (DT_FLOAT) [32,3]  <- DAMAGED" \
  "inspect_checkpoint: Checkpoint file $newest is corrupt" \
  "DAMAGED: the data of 1 of 21 tensors fails its checksum: logits/w/Adam_1."
last_events=$(ls "$run"/events.out.tfevents.* | tail -1)
size=$(wc -c < "$last_events")
truncate -s $((size - 5)) "$last_events"
"$inspect_events" "$run" > "$work/d2.txt" 2>&1
expect 0 $? "$work/d2.txt" "then stopped (the events before count):" "truncated record" \
  "Event files in $run: 2"
"$plot" "$run" --output="$work/damaged.png" > "$work/d3.txt" 2>&1
expect 0 $? "$work/d3.txt" "truncated record at offset" "(the events before it are plotted)"

# 5. Issue 32, item 9: event files that are a FIFO or a link to /dev/zero. plot_scalars hung
#    on the first and grew to 7 GB in 15 s on the second; now each is refused before a byte
#    is read, and the regular file beside them is still drawn. (`timeout` and `ulimit -v`
#    only stop a regression from hanging the test or filling the machine.)
hostile="$work/hostile"
mkdir -p "$hostile"
cp "$(ls "$run"/events.out.tfevents.* | head -1)" "$hostile/"
mkfifo "$hostile/events.out.tfevents.9999999998.fifo"
ln -s /dev/zero "$hostile/events.out.tfevents.9999999999.zero"
(ulimit -v 4000000; timeout 120 "$plot" "$hostile" --output="$work/h1.png") > "$work/h1.txt" 2>&1
expect 0 $? "$work/h1.txt" "events.out.tfevents.9999999998.fifo: is a FIFO, not a regular file" \
  "events.out.tfevents.9999999999.zero: is a character device, not a regular file" "3 tags"
(ulimit -v 4000000; timeout 120 "$plot" "$hostile/events.out.tfevents.9999999998.fifo" \
  --output="$work/h2.png") > "$work/h2.txt" 2>&1
expect 1 $? "$work/h2.txt" "is a FIFO, not a regular file" "no scalar values in"

# 6. Usage: --help, no argument, conflicting flags, nothing there.
"$inspect_checkpoint" --help > "$work/u1.txt" 2>&1
expect 1 $? "$work/u1.txt" "Usage: inspect_checkpoint FILE_OR_DIRECTORY" "--tensor_name"
"$inspect_events" --help > "$work/u2.txt" 2>&1
expect 1 $? "$work/u2.txt" "Usage: inspect_events LOG_DIRECTORY_OR_EVENT_FILE"
"$plot" --help > "$work/u3.txt" 2>&1
expect 0 $? "$work/u3.txt" "--output"
"$inspect_checkpoint" > "$work/u4.txt" 2>&1
expect 2 $? "$work/u4.txt" "give one checkpoint file or directory"
"$inspect_checkpoint" "$run" --tensor_name=w --all_tensors > "$work/u5.txt" 2>&1
expect 2 $? "$work/u5.txt" "exclude each other"
"$inspect_events" "$work/nowhere" > "$work/u6.txt" 2>&1
expect 1 $? "$work/u6.txt" "no such log directory or event file: $work/nowhere"
"$inspect_checkpoint" "$work/nowhere" > "$work/u7.txt" 2>&1
expect 1 $? "$work/u7.txt" "$work/nowhere"
"$plot" "$work" --output="$work/x.png" > "$work/u8.txt" 2>&1
expect 1 $? "$work/u8.txt" "no event file in $work"
"$plot" "$run" --output="$work/x.jpg" > "$work/u9.txt" 2>&1
expect 2 $? "$work/u9.txt" "--output must end in .png or .svg"

echo "PASS: inspect_checkpoint, inspect_events and plot_scalars on train_spirals' directory"
