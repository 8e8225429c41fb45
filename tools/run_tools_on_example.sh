#!/bin/sh
# Runs the inspection tools on the main example's directory, as a reader would, for the book:
# train_spirals trains to step 1000 in a fresh directory, then again to step 2000 (it
# resumes), and inspect_checkpoint, inspect_events and plot_scalars read what it left. Each
# tool's output, after the command a reader would type, goes to a file the chapters quote;
# the plot is the image chapter 03 shows. Any tool that fails fails the book's build.
#
# Chapter 03 also shows the start of graph.pbtxt, the graph CheckpointSaverHook left there,
# and two of the pictures of the decision regions train_spirals wrote (at steps 200 and
# 2000), cut out of the event files as PNG files by the independent decoder.
#
# Usage: run_tools_on_example.sh TRAIN_SPIRALS INSPECT_CHECKPOINT INSPECT_EVENTS PLOT_SCALARS
#            DECODE_EVENTS_PY OUT_CHECKPOINT_TXT OUT_EVENTS_TXT OUT_PLOT_TXT OUT_PNG
#            OUT_GRAPH_TXT OUT_PICTURE_200_PNG OUT_PICTURE_2000_PNG
set -eu
absolute() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
train="$(absolute "$1")"
inspect_checkpoint="$(absolute "$2")"
inspect_events="$(absolute "$3")"
plot_scalars="$(absolute "$4")"
decoder_dir="$(dirname "$(absolute "$5")")"
checkpoint_txt="$(absolute "$6")"
events_txt="$(absolute "$7")"
plot_txt="$(absolute "$8")"
png="$(absolute "$9")"
graph_txt="$(absolute "${10}")"
picture_200="$(absolute "${11}")"
picture_2000="$(absolute "${12}")"

workdir="$(mktemp -d)"
trap 'rm -rf "$workdir"' EXIT
cd "$workdir"
"$train" --steps=1000 --checkpoint_dir=run >train.log 2>&1 || { cat train.log; exit 1; }
"$train" --steps=2000 --checkpoint_dir=run >train.log 2>&1 || { cat train.log; exit 1; }

# Prints the command as a reader types it, then runs the tool with the same arguments.
show() {
  name="$1"
  shift
  echo "\$ bazel run //tools:$name -- $*"
}

{
  show inspect_checkpoint run
  "$inspect_checkpoint" run
  echo
  show inspect_checkpoint run/model.ckpt-2000 --tensor_name=logits/b
  "$inspect_checkpoint" run/model.ckpt-2000 --tensor_name=logits/b
} >"$checkpoint_txt" 2>&1

{
  show inspect_events run
  "$inspect_events" run
} >"$events_txt" 2>&1

{
  show plot_scalars run --output=scalars.png
  PYTHONPATH="$decoder_dir" "$plot_scalars" run --output=scalars.png
} >"$plot_txt" 2>&1
cp scalars.png "$png"

# Two nodes of the graph's text form: a MatMul with its data inputs, dtype and output shape,
# and a Const that waits on control inputs ("^op").
node_of() {  # Prints the top-level "node { ... }" block whose name is $1.
  awk -v want="  name: \"$1\"" '
    /^node \{$/ { block = $0; keep = 0; next }
    block != "" { block = block "\n" $0; if ($0 == want) keep = 1 }
    /^\}$/ && block != "" { if (keep) print block; block = "" }
  ' run/graph.pbtxt
}
{
  echo "\$ grep -c '^node {' run/graph.pbtxt"
  grep -c '^node {' run/graph.pbtxt
  echo "# two of those nodes:"
  node_of hidden1/MatMul
  node_of Adam/beta1 | sed '/^  attr {/,$d'
  echo "  # ... its attributes: _output_shapes, dtype, value"
  echo "}"
} >"$graph_txt"

# The pictures of the decision regions at steps 200 and 2000: the PNG bytes of the image
# summary tagged decision_regions/image, as they are in the event file.
/usr/bin/python3 - "$decoder_dir" run "$picture_200" "$picture_2000" <<'PY'
import glob, sys
sys.path.insert(0, sys.argv[1])
import decode_events
wanted = {200: sys.argv[3], 2000: sys.argv[4]}
for path in sorted(glob.glob(sys.argv[2] + "/events.out.tfevents.*")):
    data = open(path, "rb").read()
    for _, payload in decode_events.read_records(data, path):
        event = decode_events.Event()
        event.ParseFromString(payload)
        for value in event.summary.value:
            if value.tag == "decision_regions/image" and event.step in wanted:
                with open(wanted.pop(event.step), "wb") as out:
                    out.write(value.image.encoded_image_string)
if wanted:
    sys.exit("run_tools_on_example.sh: no picture at step(s) %s" % sorted(wanted))
PY
