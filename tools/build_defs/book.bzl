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
exits non-zero, the build fails: a broken example cannot hide behind a stale transcript
(except in a student copy with the labs, whose programs stop at the first unwritten lab).
"""

# [mts:example-output]
def mts_example_output(name, binary, args = [], data = [], visibility = None):
    """Runs `binary` with `args` and captures its stdout and stderr in `<name>.txt`.

    `data` are more inputs the run needs; `args` may name them with `$(execpath ...)`
    (for example a wrapper script given the program it runs).
    """
    run = "$(execpath %s) %s >$@ 2>&1" % (binary, " ".join(args))
    native.genrule(
        name = name,
        # The binary is built for the target configuration (as a src, not a tool), so it
        # is compiled once and runs under the same sanitizer flags as the tests.
        srcs = [binary] + data,
        outs = [name + ".txt"],
        # In a student copy with the labs (--define=student_copy=labs, which
        # tools/export_student_copy.sh --labs puts in the copy's .bazelrc) a program may
        # stop at a lab the student has not written yet: its transcript says so, and the
        # build goes on.
        cmd = select({
            "//tools/build_defs:student_copy_labs": run + " || echo '(stopped at a lab " +
                                                    "that is not written yet)' >>$@",
            "//conditions:default": run,
        }),
        visibility = visibility,
    )
# [mts:example-output-end]
