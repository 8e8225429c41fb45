"""mts_reach_up_test: no test reaches up a stage.

A stage's tests build that stage and the stages below it, nothing above: a student who
rebuilds stage 03 for its lab should not compile stage 04's Coordinator because a shared
test double happened to include it. Every package of a stage's tests (tests/NN_stage/ and
its sub-packages, and tests/platform/, which is below stage 01) ends its BUILD file with

    load("//tools/build_defs:reach_up.bzl", "mts_reach_up_test")

    mts_reach_up_test()

which makes:
  :reach_up_graph   a genquery, at build time, of the package's targets (every rule defined
                    above the call) and everything they depend on, as a graph
  :reach_up_test    reads that graph: it fails if one of those targets depends, however
                    indirectly, on a package of src/ of a higher stage, naming the target,
                    the package it reaches and the path that leads there
                    (tools/build_defs/reach_up_test.py)

The call comes last so that it sees every target of the package;
//tools/build_defs:reach_up_coverage_test checks that every such package makes it, and
last, so a package added later cannot be forgotten.
"""

def mts_reach_up_test(name = "reach_up_test"):
    """The package's reach-up test; call it at the end of the BUILD file."""
    package = native.package_name()
    targets = sorted(native.existing_rules().keys())
    if not targets:
        fail("mts_reach_up_test: //%s has no targets above the call; call it last" % package)
    labels = " ".join(['"//%s:%s"' % (package, t) for t in targets])
    graph = "reach_up_graph"

    # deps() over the package's own targets, within their own closure (genquery accepts no
    # `//pkg/...` patterns); main-repository nodes only (an external library never depends
    # back on src/), drawn with one node per label so that every edge can be followed.
    native.genquery(
        name = graph,
        testonly = True,
        expression = "filter('^//', deps(set(%s)))" % labels,
        scope = [":" + t for t in targets],
        opts = [
            "--output=graph",
            "--nograph:factored",
        ],
    )
    native.sh_test(
        name = name,
        size = "small",
        srcs = ["//tools/build_defs:reach_up_test.py"],
        args = [
            package,
            "$(location :%s)" % graph,
        ],
        data = [":" + graph],
    )
