#!/usr/bin/python3
"""Releases one lab's reference code to students after its deadline, and applies it.

    release.py make LAB OUT     in the reference tree (tools/release_lab.sh LAB OUT)
    release.py apply RELEASE    in a student's copy (tools/apply_release.sh RELEASE)

`make` writes the folder OUT with the bodies of lab LAB's regions (`// [mts:lab LAB]` ...
`// [mts:lab-end]`) as the reference has them, and nothing else:

    OUT/release.json      the lab, and for each file the functions whose regions it
                          replaces, in order, with their reference bodies
    OUT/README.txt        what it is and the command that applies it
    OUT/lab_LAB.diff      the same change as a diff from the starter, for reading (any
                          other lab's regions in the same files stay starters in it)

`apply` replaces, in the copy it runs in, the body of each region of that lab, and only
those: the student's other labs, the rest of each file (a helper the student added, an
include, a comment) and every other file stay as they are. It removes the lab's student
prelude (the comment and pragmas tools/export_student_copy.sh put at the top of the file),
and keeps what it replaced in lab_backups/LAB/ at the top of the copy.

It refuses, naming the file and what to do, and changes nothing at all, when a region
cannot be matched: a file is missing, a marker was deleted or edited, a region is nested or
not closed, or the regions are not those of the release (another function, another order).
Regions are matched by the function they are in (make_starter.py finds its name, the last
`Class::Function(` that starts a line above the marker) and their order in the file.
"""

import argparse
import difflib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_lib  # noqa: E402
import make_starter  # noqa: E402

FORMAT = "mts lab release 1"
BACKUPS = "lab_backups"


class ReleaseError(Exception):
    """A region that cannot be matched; the message names the file and what to do."""


class Region:
    """One lab region of a file: the lines of its two markers and of its body."""

    def __init__(self, lab, function, begin, body, end):
        self.lab = lab
        self.function = function
        self.begin = begin  # index of the `// [mts:lab NAME]` line
        self.body = body  # the lines between the markers, each with its newline
        self.end = end  # index of the `// [mts:lab-end]` line


def regions(text, path):
    """The lab regions of a file, in order; raises ReleaseError on a malformed one."""
    lines = text.splitlines(keepends=True)
    found, function, open_at, lab = [], None, None, None
    for i, line in enumerate(lines):
        begin = make_starter.BEGIN.match(line)
        if open_at is not None:
            if begin:
                raise ReleaseError("%s:%d: a lab region opens inside the region of lab %s "
                                   "opened at line %d; put back its `// [mts:lab-end]`" % (
                                       path, i + 1, lab, open_at + 1))
            if make_starter.END.match(line):
                found.append(Region(lab, function, open_at, lines[open_at + 1:i], i))
                open_at = None
            continue
        if make_starter.END.match(line):
            raise ReleaseError("%s:%d: `// [mts:lab-end]` without its `// [mts:lab NAME]`; "
                               "put the opening marker back" % (path, i + 1))
        match = make_starter.FUNCTION.match(line)
        if match:
            function = match.group(1)
        if begin:
            open_at, lab = i, begin.group(2)
    if open_at is not None:
        raise ReleaseError("%s:%d: the region of lab %s is never closed; put back its "
                           "`// [mts:lab-end]`" % (path, open_at + 1, lab))
    return found


def lab_files(root, lab):
    """{path: text} of every source under src/ with a region of the lab."""
    files = {}
    marker = "// [mts:lab %s]" % lab
    for folder, dirs, names in os.walk(os.path.join(root, "src")):
        dirs.sort()
        for name in sorted(names):
            if not name.endswith((".cc", ".h")):
                continue
            full = os.path.join(folder, name)
            with open(full, encoding="utf-8") as f:
                text = f.read()
            if marker in text:
                files[os.path.relpath(full, root)] = text
    return files


def make_release(lab, files):
    """The release of `lab` from the reference texts {path: text}: a dict for release.json."""
    entries = {}
    for path, text in sorted(files.items()):
        mine = [r for r in regions(text, path) if r.lab == lab]
        if not mine:
            continue
        entries[path] = {
            "prelude": make_starter.STUDENT_PRELUDE.format(
                lab=lab, page=make_starter.lab_page(lab, path)),
            "regions": [{"function": r.function, "body": "".join(r.body)} for r in mine],
        }
    if not entries:
        raise ReleaseError("no file under src/ has a region of lab %s" % lab)
    return {"format": FORMAT, "lab": lab, "files": entries}


def release_text(text, path, lab, entry):
    """The student's text with the lab's regions replaced by the release's bodies and the
    lab's prelude removed; raises ReleaseError when the regions do not match."""
    mine = [r for r in regions(text, path) if r.lab == lab]
    wanted = [r["function"] for r in entry["regions"]]
    have = [r.function for r in mine]
    if have != wanted:
        missing = [f for f in wanted if f not in have]
        raise ReleaseError(
            "%s: the release replaces %d region(s) of lab %s, in %s; the file has %d (%s)%s. "
            "Put the markers `// [mts:lab %s]` and `// [mts:lab-end]` back around the "
            "body of each of those functions (the starter had them), then apply again" % (
                path, len(wanted), lab, ", ".join(wanted), len(mine),
                ", ".join(have) or "none",
                "; no region in " + ", ".join(missing) if missing else "", lab))
    lines = text.splitlines(keepends=True)
    for region, new in reversed(list(zip(mine, entry["regions"]))):
        lines[region.begin + 1:region.end] = new["body"].splitlines(keepends=True)
    out = "".join(lines)
    prelude = entry["prelude"]
    at = out.find(prelude)
    if at == 0 or (at > 0 and out[at - 1] == "\n"):
        out = out[:at] + out[at + len(prelude):]
    return out


def starters_of_all(text, path):
    """The text as the student copy starts it: every lab's regions replaced by their starter
    (as tools/export_student_copy.sh --labs does, lab by lab in name order)."""
    for lab in sorted({r.lab for r in regions(text, path)}):
        text, _ = make_starter.starter(text, lab, path, student=True)
    return text


def diff_for_reading(lab, files):
    """The release as a unified diff from the starter, other labs' regions left starters."""
    out = []
    for path, text in sorted(files.items()):
        others = sorted({r.lab for r in regions(text, path)} - {lab})
        after = text
        for other in others:
            after, _ = make_starter.starter(after, other, path, student=True)
        before, _ = make_starter.starter(after, lab, path, student=True)
        out.extend(difflib.unified_diff(before.splitlines(keepends=True),
                                        after.splitlines(keepends=True),
                                        "a/" + path, "b/" + path))
    return "".join(out)


def _inside(path, root):
    path, root = os.path.realpath(path), os.path.realpath(root)
    return path == root or path.startswith(root + os.sep)


def make(lab, out, root):
    table = [l["name"] for l in labs_lib.load_labs(os.path.join(root, "tools/labs/labs.bzl"))]
    if lab not in table:
        raise ReleaseError("no lab named %s; the labs are: %s" % (lab, " ".join(table)))
    if os.path.exists(os.path.join(root, "tools/labs/STUDENT_COPY")):
        raise ReleaseError("this is a student copy, which holds no reference code; make the "
                           "release in the reference tree")
    if _inside(out, root):
        raise ReleaseError("%s is inside the tree; write the release outside it (an "
                           "untracked file in the tree would ship with the next student "
                           "copy)" % out)
    if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
        raise ReleaseError("%s exists and is not an empty folder; choose a new one" % out)
    files = lab_files(root, lab)
    release = make_release(lab, files)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "release.json"), "w", encoding="utf-8") as f:
        json.dump(release, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "lab_%s.diff" % lab), "w", encoding="utf-8") as f:
        f.write(diff_for_reading(lab, files))
    functions = ["  %s: %s" % (p, ", ".join(r["function"] for r in e["regions"]))
                 for p, e in release["files"].items()]
    with open(os.path.join(out, "README.txt"), "w", encoding="utf-8") as f:
        f.write("The reference code of lab %s, released after its deadline.\n\n"
                "In your copy of mts, run\n\n    tools/apply_release.sh %s\n\n"
                "It replaces the bodies of these functions (between `// [mts:lab %s]` and\n"
                "`// [mts:lab-end]`) and nothing else; your version is kept in\n"
                "%s/%s/. lab_%s.diff shows the change.\n\n%s\n" % (
                    lab, os.path.abspath(out), lab, BACKUPS, lab, lab, "\n".join(functions)))
    count = sum(len(e["regions"]) for e in release["files"].values())
    print("release_lab: lab %s: %d regions in %d files -> %s (apply in a student copy with "
          "tools/apply_release.sh %s)" % (lab, count, len(release["files"]), out, out))


def _backup_path(root, lab, path):
    base = os.path.join(root, BACKUPS, lab, path)
    candidate, n = base, 1
    while os.path.exists(candidate):
        candidate, n = "%s.%d" % (base, n), n + 1
    return candidate


def apply(release_dir, root):
    with open(os.path.join(release_dir, "release.json"), encoding="utf-8") as f:
        release = json.load(f)
    if release.get("format") != FORMAT:
        raise ReleaseError("%s is not a lab release (made by tools/release_lab.sh)" % release_dir)
    lab = release["lab"]
    new, problems = {}, []
    for path, entry in sorted(release["files"].items()):
        full = os.path.join(root, path)
        if not os.path.isfile(full):
            problems.append("%s: not in this copy; restore it (it holds lab %s)" % (path, lab))
            continue
        with open(full, encoding="utf-8") as f:
            text = f.read()
        try:
            new[path] = (text, release_text(text, path, lab, entry))
        except ReleaseError as e:
            problems.append(str(e))
    if problems:
        raise ReleaseError("cannot apply the release of lab %s; nothing was changed:\n  %s"
                           % (lab, "\n  ".join(problems)))
    changed = [p for p, (old, text) in new.items() if old != text]
    for path in changed:
        old, text = new[path]
        backup = _backup_path(root, lab, path)
        os.makedirs(os.path.dirname(backup), exist_ok=True)
        with open(backup, "w", encoding="utf-8") as f:
            f.write(old)
    for path in changed:  # Each file whole or not at all: written beside, then renamed.
        full = os.path.join(root, path)
        with open(full + ".release_tmp", "w", encoding="utf-8") as f:
            f.write(new[path][1])
        os.chmod(full + ".release_tmp", os.stat(full).st_mode & 0o7777)
        os.replace(full + ".release_tmp", full)
    count = sum(len(e["regions"]) for e in release["files"].values())
    if not changed:
        print("apply_release: lab %s is already as released; nothing to change" % lab)
    else:
        print("apply_release: lab %s: %d regions in %d files replaced by the reference; what "
              "they held is in %s/%s/" % (lab, count, len(changed), BACKUPS, lab))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    made = sub.add_parser("make", help="write the release of a lab (reference tree)")
    made.add_argument("lab")
    made.add_argument("out")
    applied = sub.add_parser("apply", help="apply a release (student copy)")
    applied.add_argument("release")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "..", ".."), help="the tree (default: this one)")
    args = parser.parse_args()
    root = os.path.realpath(args.root)
    try:
        if args.command == "make":
            make(args.lab, os.path.abspath(args.out), root)
        else:
            apply(os.path.abspath(args.release), root)
    except (ReleaseError, OSError, ValueError) as e:
        print("%s: %s" % ("release_lab" if args.command == "make" else "apply_release", e),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
