#!/usr/bin/python3
"""The house rules on size, over every source of src/ (bazel test //tools:code_size_test):

    no function in src/ longer than 60 lines    a reader holds it at once; a longer one
                                                becomes named steps (LevelDB's DBImpl::Write)
    no .cc file in src/ longer than 500 lines   a longer one is split along its ideas

A function's length runs from the line its definition starts on to its closing brace, as
universal-ctags (Debian's universal-ctags, installed by tools/setup.sh) reports them;
comments above a function do not count, a lambda counts towards the function it is in.

    code_size_test.py [FILE...]     the files to check (default: src/**/*.h and *.cc under
                                    the current directory, which under Bazel is the
                                    runfiles tree of //docs:src_files: every package of
                                    src/ the book reads)

Prints one line per function or file over its limit, naming the file, the function and
its length, and exits 1 if there is any.
"""

import glob
import json
import os
import shutil
import subprocess
import sys

MAX_FUNCTION_LINES = 60
MAX_CC_FILE_LINES = 500


def find_ctags():
    """The universal-ctags binary; exits naming the package when it is missing."""
    ctags = shutil.which("ctags") or "/usr/bin/ctags"
    try:
        version = subprocess.run([ctags, "--version"], capture_output=True, text=True,
                                 check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        version = ""
    if "Universal Ctags" not in version:
        sys.exit("code_size_test: needs universal-ctags as `ctags` (Debian package "
                 "universal-ctags; tools/setup.sh installs it): Exuberant Ctags does not "
                 "report where a function ends")
    return ctags


def qualified_name(tag):
    """`HookedSession::Run` for a member, `Gradients` for a free function; the namespaces
    (mts, anonymous ones) are left out, as a reader names the function."""
    scope = tag.get("scope", "") if tag.get("scopeKind") in ("class", "struct") else ""
    parts = [p for p in scope.split("::") if p and p != "mts" and not p.startswith("__anon")]
    return "::".join(parts + [tag["name"]])


def long_functions(ctags, paths):
    """(path, line, name, length) of every function definition over the limit."""
    out = subprocess.run(
        [ctags, "-f", "-", "--output-format=json", "--sort=no", "--language-force=C++",
         "--kinds-C++=f", "--fields=+neZ"] + paths,
        capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or "end" not in tag:
            continue
        length = tag["end"] - tag["line"] + 1
        if length > MAX_FUNCTION_LINES:
            found.append((tag["path"], tag["line"], qualified_name(tag), length))
    return found


def long_files(paths):
    """(path, lines) of every .cc file over the limit."""
    found = []
    for path in paths:
        if path.endswith(".cc"):
            with open(path, encoding="utf-8") as f:
                lines = sum(1 for _ in f)
            if lines > MAX_CC_FILE_LINES:
                found.append((path, lines))
    return found


def main(argv):
    paths = argv[1:] or sorted(glob.glob("src/**/*.h", recursive=True) +
                               glob.glob("src/**/*.cc", recursive=True))
    if not paths:
        print("code_size_test: no sources of src/ found under %s" % os.getcwd())
        return 2
    ctags = find_ctags()
    problems = []
    for path, line, name, length in sorted(long_functions(ctags, paths)):
        problems.append("%s:%d: %s is %d lines; no function in src/ may pass %d: make its "
                        "parts named steps" % (path, line, name, length, MAX_FUNCTION_LINES))
    for path, lines in sorted(long_files(paths)):
        problems.append("%s is %d lines; no .cc file in src/ may pass %d: split it along its "
                        "ideas" % (path, lines, MAX_CC_FILE_LINES))
    packages = len({os.path.dirname(p) for p in paths})
    print("code_size_test: %d files of %d packages; functions up to %d lines, .cc files up "
          "to %d" % (len(paths), packages, MAX_FUNCTION_LINES, MAX_CC_FILE_LINES))
    for p in problems:
        print("  " + p)
    if problems:
        print("code_size_test: %d problem(s)" % len(problems))
        return 1
    print("code_size_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
