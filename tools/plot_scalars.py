#!/usr/bin/python3
"""plot_scalars.py: every scalar tag of a log directory, drawn to PNG or SVG.

    usage: plot_scalars.py LOG_DIR_OR_EVENT_FILE --output=FILE.png|FILE.svg
                           [--tags=TAG,TAG] [--title=TEXT]
    bazel run //tools:plot_scalars -- /tmp/mts_spirals --output=/tmp/spirals.png

For a machine without TensorBoard: one small chart per scalar tag (loss, accuracy,
global_step/sec, ...), the value against the step, drawn with Debian's python3-matplotlib.
Every event file of the directory (names containing "tfevents", as TensorBoard picks them) is
read in name order, which is the order a restarted run wrote them in. As mts's own readers,
it reads only regular files (a FIFO would block it, /dev/zero never end; each is reported and
skipped), and reads a file record by record, each record's length checked against what is
left of the file before its bytes are read.

The event files are read with tests/03_hooked/events/decode_events.py, the decoder that
shares no code with mts (its own TFRecord framing and CRC-32C, its own Event descriptors for
Debian's python3-protobuf), so a plot is also an independent reading of what mts wrote. A damaged or
truncated file is reported on stderr and its events before the damage are plotted.

Exit status: 0 when the image was written; 1 when there is nothing to plot (no such
directory, no event file, no scalar); 2 for a usage error.

TensorFlow: TensorBoard's scalar dashboard, in a file.
"""

import argparse
import os
import stat
import sys


def _import_decoder():
    """Imports decode_events from tests/03_hooked/events: on PYTHONPATH (the book's build
    sets it), in Bazel's runfiles (bazel run, tests), or in the source tree when run
    directly."""
    try:
        import decode_events  # pylint: disable=import-outside-toplevel
        return decode_events
    except ImportError:
        pass
    candidates = [
        os.path.join(os.getcwd(), "tests", "03_hooked", "events"),
        os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "tests", "03_hooked",
                     "events"),
    ]
    for directory in candidates:
        if os.path.isfile(os.path.join(directory, "decode_events.py")):
            sys.path.insert(0, directory)
            import decode_events  # pylint: disable=import-outside-toplevel
            return decode_events
    sys.stderr.write("plot_scalars.py: cannot find tests/03_hooked/events/decode_events.py\n")
    sys.exit(1)


decode_events = _import_decoder()

import matplotlib  # pylint: disable=wrong-import-position
matplotlib.use("Agg")  # Files only: no display needed.
import matplotlib.pyplot as plt  # pylint: disable=wrong-import-position,wrong-import-order


def event_files(path):
    """The event files `path` names: those in the directory, else `path` itself (whatever
    it is: reading it says if it is not a regular file)."""
    if not os.path.isdir(path):
        if not os.path.lexists(path):
            raise FileNotFoundError("no such log directory or event file: %s" % path)
        return [path]
    names = sorted(n for n in os.listdir(path) if "tfevents" in n)
    if not names:
        raise FileNotFoundError(
            'no event file in %s (TensorBoard reads the files whose names contain "tfevents")'
            % path)
    return [os.path.join(path, n) for n in names]


class NotARegularFile(OSError):
    """An event file that is a FIFO, a device or a directory; the message says which."""


class FileBytes:
    """The bytes of an open regular file as read_records looks at them, read only when a
    slice of them is asked for (pread). len() is the size fstat gave at the start, so every
    record's length is checked against the file before its payload is read: a huge sparse
    file costs one header, not its size in memory."""

    def __init__(self, fd, path):
        self._fd = fd
        self._path = path
        self._size = os.fstat(fd).st_size

    def __len__(self):
        return self._size

    def __getitem__(self, part):
        wanted = part.stop - part.start
        got = os.pread(self._fd, wanted, part.start)
        if len(got) != wanted:
            raise decode_events.DamagedRecord(
                "%s: cut short at offset %d while it was read" % (self._path, part.start))
        return got


def open_event_file(path):
    """The file descriptor of the regular file at `path`, opened for reading. A FIFO is
    opened without waiting for a writer (O_NONBLOCK), then refused with a device or a
    directory, before a byte is read. Raises NotARegularFile or another OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    mode = os.fstat(fd).st_mode
    if stat.S_ISREG(mode):
        return fd
    os.close(fd)
    kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
            "a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
    raise NotARegularFile("%s: is %s, not a regular file (remove it or point to the real file)"
                          % (path, kind))


def read_scalars(paths):
    """{tag: [(step, value), ...]} over `paths` in order, and the problems met on the way."""
    scalars = {}
    problems = []
    for path in paths:
        try:
            fd = open_event_file(path)
        except NotARegularFile as refused:
            problems.append("%s; skipped" % refused)
            continue
        try:
            data = FileBytes(fd, path)
            for offset, payload in decode_events.read_records(data, path):
                event = decode_events.Event()
                try:
                    event.ParseFromString(payload)
                except Exception:  # google.protobuf's DecodeError: a record that is no Event.
                    problems.append("%s: record at offset %d is not an Event (the events before "
                                    "it are plotted)" % (path, offset))
                    break
                if event.WhichOneof("what") != "summary":
                    continue
                for value in event.summary.value:
                    if value.WhichOneof("value") == "simple_value":
                        scalars.setdefault(value.tag, []).append((event.step, value.simple_value))
        except decode_events.DamagedRecord as damage:
            problems.append("%s (the events before it are plotted)" % damage)
        finally:
            os.close(fd)
    return scalars, problems


def plot(scalars, output, title):
    """Draws one chart per tag, in a grid of up to two columns, into `output`."""
    tags = sorted(scalars)
    # Two columns of 4.2 inches at 100 dpi: 840 px, narrower than the book's column, so the
    # chart is shown at its own size and its labels stay readable.
    columns = min(2, len(tags))
    rows = (len(tags) + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.0 * rows),
                                squeeze=False)
    for index, tag in enumerate(tags):
        chart = axes[index // columns][index % columns]
        steps, values = zip(*scalars[tag])
        chart.plot(steps, values, marker="o", markersize=3, linewidth=1.2)
        chart.set_title(tag, fontsize=10)
        chart.set_xlabel("step", fontsize=9)
        chart.tick_params(labelsize=8)
        chart.grid(True, alpha=0.3)
    for index in range(len(tags), rows * columns):
        axes[index // columns][index % columns].axis("off")
    if title:
        figure.suptitle(title, fontsize=11)
    figure.tight_layout()
    # No date in the file, so the same events draw the same bytes.
    metadata = {"Date": None} if output.endswith(".svg") else {}
    figure.savefig(output, metadata=metadata)
    plt.close(figure)


def main(argv):
    parser = argparse.ArgumentParser(
        prog="plot_scalars.py",
        description="Draws every scalar tag of a log directory's event files to PNG or SVG.")
    parser.add_argument("path", help="a log directory, or one event file")
    parser.add_argument("--output", required=True, help="the image to write: *.png or *.svg")
    parser.add_argument("--tags", default="", help="comma-separated tags to draw (default: all)")
    parser.add_argument("--title", default="", help="a title above the charts")
    args = parser.parse_args(argv[1:])
    if not args.output.endswith((".png", ".svg")):
        parser.error("--output must end in .png or .svg, got %r" % args.output)

    # `bazel run` starts in the runfiles; the user's paths are relative to where they ran it.
    working_directory = os.environ.get("BUILD_WORKING_DIRECTORY")
    if working_directory:
        os.chdir(working_directory)

    try:
        scalars, problems = read_scalars(event_files(args.path))
    except OSError as error:
        sys.stderr.write("plot_scalars.py: %s\n" % error)
        return 1
    for problem in problems:
        sys.stderr.write("plot_scalars.py: %s\n" % problem)
    if args.tags:
        wanted = args.tags.split(",")
        missing = [t for t in wanted if t not in scalars]
        if missing:
            sys.stderr.write("plot_scalars.py: no scalar tagged %s in %s; it has: %s\n"
                             % (", ".join(missing), args.path, ", ".join(sorted(scalars))))
            return 1
        scalars = {t: scalars[t] for t in wanted}
    if not scalars:
        sys.stderr.write("plot_scalars.py: no scalar values in %s\n" % args.path)
        return 1
    plot(scalars, args.output, args.title)
    print("plot_scalars.py: %d tags (%s), %d values, drawn to %s"
          % (len(scalars), ", ".join(sorted(scalars)),
             sum(len(v) for v in scalars.values()), args.output))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
