"""mts_exercise: one exercise, built from its reference solution or from its starter.

Every exercise in every chapter has the same shape, one folder per exercise:

    chapters/NN_stage/exercises/<name>/
      BUILD             mts_exercise(name = "<name>", hdrs = ["<name>.h"], ...)
      <name>.h          the interface the student implements (given, documented)
      solution.cc       the reference solution; the student's part lies in regions
                        `// [mts:lab <name>]` ... `// [mts:lab-end]`, and the comments
                        outside them (TODO(student)) say what to decide
      <name>_test.cc    the tests that decide whether the work is done

The starter is derived from the solution, as a lab's is from the real source, by
tools/labs/make_starter.py: each region in a function body becomes a throw of
UnimplementedError, each region among declarations (helpers, includes, a struct's members)
is left empty. There is no hand-written starter.

`mts_exercise` makes:
  :starter.cc    the starter, derived from solution.cc at build time, unless the folder
                 holds a starter.cc: the student's own work, in the student copy (made by
                 tools/export_student_copy.sh, which derives it once and leaves solution.cc
                 out) or dropped into the instructor's tree for grading
  :<name>        a cc_library from solution.cc, or from starter.cc when the build runs with
                 `--define=exercises=starter` or when solution.cc does not exist
  :<name>_test   a cc_test of <name>_test.cc against that library, tagged "exercise" (the
                 test cases are compiled once, in :<name>_test_cases, and linked here and
                 into the starter check below)
  :<name>_starter_fails_test
                 when the starter is derived: the same tests built against it, which
                 passes only if some of them fail (tools/build_defs/starter_fails_test.py)
  :book_files    the files a chapter may quote (the starter, never the solution)
"""

def mts_exercise(
        name,
        hdrs = [],
        srcs = [],
        deps = [],
        test_deps = [],
        data = [],
        visibility = None):
    """Declares the exercise `name` in the current package (one exercise per package).

    Args:
      name: the exercise's name; also the stem of `<name>_test.cc`.
      hdrs: the given headers the starter and the solution implement.
      srcs: given sources shared by starter and solution (not part of the exercise).
      deps: libraries the starter and the solution use.
      test_deps: extra libraries the test uses (gtest_main is always there).
      data: files the test reads at run time.
      visibility: who may use the library (for example the chapter's example program).
    """

    # The student copy has no solution.cc: then the starter is all there is.
    solution = native.glob(["solution.cc"])
    default_impl = solution if solution else ["starter.cc"]

    # A starter.cc in the folder is a student's work: in the student copy, or dropped into
    # the instructor's tree for grading. Otherwise the starter is derived from the
    # solution's regions (named after the exercise).
    students_work = native.glob(["starter.cc"])
    derive_starter = solution and not students_work
    if derive_starter:
        native.genrule(
            name = name + "_starter_cc",
            srcs = ["solution.cc"],
            outs = ["starter.cc"],
            tools = ["//tools/labs:make_starter.py"],
            cmd = ("/usr/bin/python3 $(location //tools/labs:make_starter.py) --lab %s " +
                   "--path %s/solution.cc $< $@") % (name, native.package_name()),
        )

    # The starter throws UnimplementedError (src/platform/errors.h).
    errors = "//src/platform:errors"
    deps = deps + ([] if errors in deps else [errors])

    # The interface alone, so the tests compile against it once, whichever implementation
    # they are then linked with.
    native.cc_library(
        name = name + "_interface",
        hdrs = hdrs,
        deps = deps,
    )

    native.cc_library(
        name = name,
        srcs = srcs + select({
            "//tools/build_defs:exercises_starter": ["starter.cc"],
            "//conditions:default": default_impl,
        }),
        deps = [":" + name + "_interface"] + deps,
        visibility = visibility,
    )

    # The test cases, compiled once and linked into both directions below (alwayslink: no
    # symbol of theirs is referenced, gtest finds them by registration).
    native.cc_library(
        name = name + "_test_cases",
        testonly = True,
        srcs = [name + "_test.cc"],
        deps = [":" + name + "_interface", "@gtest//:gtest"] + test_deps,
        alwayslink = True,
    )

    native.cc_test(
        name = name + "_test",
        deps = [":" + name + "_test_cases", ":" + name, "@gtest//:gtest_main"],
        data = data,
        size = "small",
        tags = ["exercise"],
    )

    if derive_starter:
        # The other direction, in every `bazel test //...` of the instructor's tree: the
        # same tests against the starter must fail, or the exercise asks nothing. Not where
        # starter.cc is the student's own work.
        native.cc_library(
            name = name + "_starter",
            testonly = True,
            srcs = srcs + ["starter.cc"],
            deps = [":" + name + "_interface"] + deps,
        )
        native.cc_binary(
            name = name + "_test_on_starter",
            testonly = True,
            # Linked against the stage libraries' shared objects, as cc_test is: a static
            # link of the whole stack per exercise would cost CI a minute for nothing.
            linkstatic = False,
            deps = [":" + name + "_test_cases", ":" + name + "_starter", "@gtest//:gtest_main"],
            data = data,
        )
        native.sh_test(
            name = name + "_starter_fails_test",
            srcs = ["//tools/build_defs:starter_fails_test.py"],
            args = ["$(location :%s_test_on_starter)" % name],
            data = [":" + name + "_test_on_starter"] + data,
            size = "small",
            tags = ["exercise"],
        )
    native.filegroup(
        name = "book_files",
        srcs = hdrs + srcs + ["starter.cc", name + "_test.cc"],
        visibility = ["//visibility:public"],
    )
