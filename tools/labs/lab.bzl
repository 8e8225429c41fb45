"""mts_lab_library: a cc_library whose lab regions can be swapped for their starters.

A lab removes the bodies of a layer's core functions (the regions between
`// [mts:lab NAME]` and `// [mts:lab-end]` in the real source; see make_starter.py).
In a stage's BUILD, the library that holds a lab's regions is declared with

    mts_lab_library(
        name = "hooked_session",
        lab = "03_hooked",
        lab_srcs = ["hooked_session.cc"],   # the sources with regions of the lab
        srcs = [],                          # other sources, always as they are
        hdrs = ["hooked_session.h"],
        deps = [...],
    )

and makes:
  :<name>               the cc_library, from lab_srcs as written; from their starters when
                        the build runs with `--define=lab=<lab>` (the config_setting
                        //tools/labs:<lab>), so only this library recompiles and only what
                        links it relinks
  :<stem>_lab_starter_cc  one genrule per lab source <stem>.cc: <stem>.lab_starter.cc
  :<stem>_lab_functions_cc  <stem>.lab_functions.cc: only the lab's functions, starters
  :<name>_lab_starter   a cc_library of the lab's functions alone (tagged manual)
  :lib<name>_lab_starter.so  its shared object, which //tools/labs:labs_test preloads in
                        front of the reference build to check that the starter fails its
                        tests without building the stack a second time
  :<name>_lab_srcs      the lab sources as written, for //tools/labs:ladder_test, which
                        checks the release of each lab (tools/labs/release.py) on them
  :lib<name>_fixture_<fixture>.so  for each fixture of this library in
                        tools/labs/fixtures.bzl (a wrong solution, as a patch of one lab
                        source): the whole library again, built from the patched source, for
                        //tools/labs:fixtures_test to load in place of the reference library
                        (tagged manual)
"""

load("//tools/labs:fixtures.bzl", "FIXTURES")

def mts_lab_library(name, lab, lab_srcs, srcs = [], deps = [], **kwargs):
    """A cc_library `name` whose `lab_srcs` become their starters under --define=lab=`lab`."""
    starters = []
    functions = []
    for src in lab_srcs:
        stem = src[:-len(".cc")]
        out = stem + ".lab_starter.cc"
        native.genrule(
            name = stem + "_lab_starter_cc",
            srcs = [src],
            outs = [out],
            tools = ["//tools/labs:make_starter.py"],
            cmd = ("/usr/bin/python3 $(location //tools/labs:make_starter.py) --lab %s " +
                   "--path %s/%s $< $@") % (lab, native.package_name(), src),
        )
        starters.append(":" + out)
        native.genrule(
            name = stem + "_lab_functions_cc",
            srcs = [src],
            outs = [stem + ".lab_functions.cc"],
            tools = ["//tools/labs:make_starter.py"],
            cmd = ("/usr/bin/python3 $(location //tools/labs:make_starter.py) --lab %s " +
                   "--functions_only --path %s/%s $< $@") % (lab, native.package_name(), src),
        )
        functions.append(":" + stem + ".lab_functions.cc")

    native.cc_library(
        name = name,
        srcs = srcs + select({
            "//tools/labs:" + lab: starters,
            "//conditions:default": lab_srcs,
        }),
        deps = deps,
        **kwargs
    )

    # The lab's functions alone, with their starter bodies, as a shared object for the CI
    # check to preload in front of the reference build (the rest of each file is already
    # there, and its registrations must not run twice).
    native.cc_library(
        name = name + "_lab_starter",
        srcs = functions,
        hdrs = kwargs.get("hdrs", []),
        deps = deps + ([] if "//src/platform:errors" in deps else ["//src/platform:errors"]),
        tags = ["manual"],
    )
    native.filegroup(
        name = "lib%s_lab_starter.so" % name,
        srcs = [":" + name + "_lab_starter"],
        output_group = "dynamic_library",
        tags = ["manual"],
        visibility = ["//tools/labs:__pkg__"],
    )

    native.filegroup(
        name = name + "_lab_srcs",
        srcs = lab_srcs,
        visibility = ["//tools/labs:__pkg__"],
    )

    label = "//%s:%s" % (native.package_name(), name)
    for fixture in FIXTURES:
        if fixture["library"] == label:
            _fixture_library(name, lab, lab_srcs, srcs, deps, fixture, kwargs)

def _fixture_library(name, lab, lab_srcs, srcs, deps, fixture, kwargs):
    """The library `name` again, with `fixture`'s patch applied to its source, as a shared
    object (the tests link the libraries as shared objects, so the fixture test can load it
    in place of the reference one: the whole library, once, so nothing registers twice)."""
    if fixture["src"] not in lab_srcs:
        fail("fixtures.bzl: fixture %s patches %s, which is not a lab source of %s" % (
            fixture["name"], fixture["src"], name))
    patch = "//tools/labs/fixtures:%s/%s.patch" % (lab, fixture["name"])
    patched = "%s.fixture_%s.cc" % (fixture["src"][:-len(".cc")], fixture["name"])
    native.genrule(
        name = "%s_fixture_%s_cc" % (name, fixture["name"]),
        srcs = [fixture["src"], patch],
        outs = [patched],
        tools = ["//tools/labs:fixtures.py"],
        cmd = ("/usr/bin/python3 $(location //tools/labs:fixtures.py) apply --lab %s " +
               "--path %s/%s $(location %s) $(location %s) $@") % (
            lab,
            native.package_name(),
            fixture["src"],
            patch,
            fixture["src"],
        ),
        tags = ["manual"],
    )
    library = dict(kwargs)
    library["visibility"] = ["//visibility:private"]
    native.cc_library(
        name = "%s_fixture_%s" % (name, fixture["name"]),
        srcs = srcs + [patched if src == fixture["src"] else src for src in lab_srcs],
        deps = deps,
        tags = ["manual"],
        **library
    )
    native.filegroup(
        name = fixture_so_name(name, fixture["name"]),
        srcs = [":%s_fixture_%s" % (name, fixture["name"])],
        output_group = "dynamic_library",
        tags = ["manual"],
        visibility = ["//tools/labs:__pkg__"],
    )

def fixture_so_name(library_name, fixture_name):
    return "lib%s_fixture_%s.so" % (library_name, fixture_name)

def fixture_so(fixture):
    """The shared object of a fixtures.bzl entry: //src/03_hooked:hooked_session and
    results_by_hook -> //src/03_hooked:libhooked_session_fixture_results_by_hook.so."""
    package, name = fixture["library"].split(":")
    return "%s:%s" % (package, fixture_so_name(name, fixture["name"]))

def lab_starter_so(library):
    """//src/03_hooked:hooked_session -> //src/03_hooked:libhooked_session_lab_starter.so."""
    package, name = library.split(":")
    return "%s:lib%s_lab_starter.so" % (package, name)

def lab_srcs(library):
    """//src/03_hooked:hooked_session -> //src/03_hooked:hooked_session_lab_srcs."""
    return library + "_lab_srcs"

def needs_query_name(test):
    """//tests/03_hooked:hooked_session_test -> needs__tests_03_hooked_hooked_session_test:
    the genquery of the lab libraries the test links (tools/labs/BUILD, table_test.py)."""
    return "needs_" + test.replace("/", "_").replace(":", "_")
