"""mts_example_output: run an example program and keep what it printed, for the book.

The book never shows output typed by hand. A chapter that wants to show what an example
prints declares, next to the example's cc_binary,

    mts_example_output(
        name = "two_graphs_output",
        binary = ":two_graphs",
    )

which runs the program at build time and writes everything it printed (stdout and
stderr, in one stream) to `two_graphs_output.txt` in the same package. The book's build
gets that file through the package's `book_files` filegroup and the chapter quotes it with

    ```{literalinclude} /examples/two_graphs_output.txt
    :language: text
    ```

(paths that start with `/` are relative to the top of the repository). If the program
exits non-zero, the build fails: a broken example cannot hide behind a stale transcript.

A student copy with the labs cannot run a program that goes through a lab the student has
not written yet. `tools/export_student_copy.sh --labs` runs those programs in the reference
tree instead and ships what they printed in the package's `book_outputs/` folder; in the
copy (`--define=student_copy=labs`, which the export puts in its .bazelrc) the rule copies
the shipped file and the program is not even built (mts_book_genrule below).
"""

# [mts:example-output]
def mts_example_output(name, binary, args = [], data = [], visibility = None):
    """Runs `binary` with `args` and captures its stdout and stderr in `<name>.txt`.

    `data` are more inputs the run needs; `args` may name them with `$(execpath ...)`
    (for example a wrapper script given the program it runs).
    """
    mts_book_genrule(
        name = name,
        # The binary is built for the target configuration (as a src, not a tool), so it
        # is compiled once and runs under the same sanitizer flags as the tests.
        srcs = [binary] + data,
        outs = [name + ".txt"],
        cmd = "$(execpath %s) %s >$@ 2>&1" % (binary, " ".join(args)),
        # In a student copy whose export shipped no transcript, a program that stops at a
        # lab not written yet says so, and the build goes on.
        student_fallback = " || echo '(stopped at a lab that is not written yet)' >>$@",
        visibility = visibility,
    )
# [mts:example-output-end]

# The tag of every genrule whose outputs the book shows: tools/labs/ship_book_outputs.py
# finds them by it (those that depend on a lab's code) when it exports a student copy.
BOOK_OUTPUT_TAG = "mts_book_output"

def mts_book_genrule(name, srcs, outs, cmd, student_fallback = "", visibility = None):
    """A genrule that makes files the book shows, by running programs at build time.

    In the reference tree it runs `cmd`. In a student copy with the labs
    (`--define=student_copy=labs`) it copies `book_outputs/<out>` for each of `outs` when
    the export shipped them all (what the reference printed, see
    tools/labs/ship_book_outputs.py), so that the book never shows a starter's crash and the
    copy builds nothing of the programs; otherwise it runs `cmd` followed by
    `student_fallback` (a shell fragment that starts with `||`, for a program that stops at
    a lab).
    """
    shipped = native.glob(["book_outputs/" + out for out in outs], allow_empty = True)
    if len(shipped) == len(outs):
        copy = " && ".join([
            "cp $(location book_outputs/%s) $(location %s)" % (out, out)
            for out in outs
        ])
        student_srcs, student_cmd = shipped, copy
    else:
        student_srcs, student_cmd = srcs, cmd + student_fallback
    native.genrule(
        name = name,
        srcs = select({
            "//tools/build_defs:student_copy_labs": student_srcs,
            "//conditions:default": srcs,
        }),
        outs = outs,
        cmd = select({
            "//tools/build_defs:student_copy_labs": student_cmd,
            "//conditions:default": cmd,
        }),
        tags = [BOOK_OUTPUT_TAG],
        visibility = visibility,
    )
