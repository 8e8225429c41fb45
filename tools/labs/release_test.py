#!/usr/bin/python3
"""The release of a lab (bazel test //tools/labs:release_test): release.py on a small tree
of its own, with a file that holds two labs' regions and a student's edits around them.

  - applying the release of lab 03 replaces exactly lab 03's regions: lab 01's region keeps
    the student's body, a helper and a comment the student added stay, lab 03's student
    prelude goes, and what the regions held is kept in lab_backups/03_hooked/;
  - applying it twice changes nothing the second time;
  - a deleted end marker, a deleted opening marker, a region moved to another function and
    a missing file are each refused with a message naming the file, and nothing at all is
    changed: not that file, not the other file the release would have changed, no backup;
  - `make` refuses an unknown lab, a folder inside the tree, a student copy;
  - the command line says the same and exits 1.

ladder_test applies the real releases to the real lab sources.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_starter  # noqa: E402
import release  # noqa: E402

HOOKED = """\
#include "src/03_hooked/hooked.h"

namespace mts {

void Session::Run(int x) {
  // [mts:lab 01_session]
  int y = x + 1;
  Use(y);
  // [mts:lab-end]
}

void HookedSession::Run(int x) {
  // [mts:lab 03_hooked]
  Merge(x);
  Ask(x);
  // [mts:lab-end]
}

void HookedSession::HandBack() {
  // [mts:lab 03_hooked]
  Give();
  // [mts:lab-end]
}

}  // namespace mts
"""

OTHER = """\
namespace mts {

void HookedSession::Ask(int x) {
  // [mts:lab 03_hooked]
  Answer(x);
  // [mts:lab-end]
}

}  // namespace mts
"""

PATH = "src/03_hooked/hooked.cc"
OTHER_PATH = "src/03_hooked/other.cc"


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def read(root, path):
    with open(os.path.join(root, path), encoding="utf-8") as f:
        return f.read()


class ReleaseTest(unittest.TestCase):

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="release_test_")
        self.reference = os.path.join(self.tmp, "reference")
        self.copy = os.path.join(self.tmp, "copy")
        self.out = os.path.join(self.tmp, "release-03")
        for root in (self.reference, self.copy):
            os.makedirs(os.path.join(root, "tools/labs"))
            shutil.copy(os.path.join(HERE, "labs.bzl"), os.path.join(root, "tools/labs"))
        write(self.reference, PATH, HOOKED)
        write(self.reference, OTHER_PATH, OTHER)
        # The student's copy: every region a starter, then the student's own work.
        student = release.starters_of_all(HOOKED, PATH)
        student = student.replace("namespace mts {\n",
                                  "namespace mts {\n\n// My helper.\nint Twice(int x) "
                                  "{ return 2 * x; }\n", 1)
        student = self.replace_body(student, "01_session", "  Use(Twice(x));  // mine\n")
        student = self.replace_body(student, "03_hooked", "  Wrong(x);  // my try\n")
        write(self.copy, PATH, student)
        write(self.copy, OTHER_PATH, release.starters_of_all(OTHER, OTHER_PATH))
        with contextlib.redirect_stdout(io.StringIO()):
            release.make("03_hooked", self.out, self.reference)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    @staticmethod
    def replace_body(text, lab, body):
        """The text with the first region of `lab` holding `body`."""
        first = next(r for r in release.regions(text, PATH) if r.lab == lab)
        lines = text.splitlines(keepends=True)
        lines[first.begin + 1:first.end] = [body]
        return "".join(lines)

    def apply(self):
        with contextlib.redirect_stdout(io.StringIO()) as out:
            release.apply(self.out, self.copy)
        return out.getvalue()

    def test_replaces_only_the_labs_regions_and_keeps_the_rest(self):
        before = read(self.copy, PATH)
        self.apply()
        after = read(self.copy, PATH)
        regions = release.regions(after, PATH)
        self.assertEqual(["  Use(Twice(x));  // mine\n"],
                         [r.body[0] for r in regions if r.lab == "01_session"])
        self.assertEqual([["  Merge(x);\n", "  Ask(x);\n"], ["  Give();\n"]],
                         [r.body for r in regions if r.lab == "03_hooked"])
        self.assertIn("// My helper.\nint Twice(int x)", after)
        self.assertNotIn("Lab 03_hooked: the bodies", after)  # Its prelude went.
        self.assertIn("Lab 01_session: the bodies", after)  # Lab 01's stays.
        self.assertEqual(before, read(self.copy, os.path.join("lab_backups/03_hooked", PATH)))
        self.assertIn("  Answer(x);\n", read(self.copy, OTHER_PATH))

    def test_the_result_is_the_reference_for_that_lab(self):
        # An untouched all-starters file becomes reference-for-03, starter-for-01.
        write(self.copy, PATH, release.starters_of_all(HOOKED, PATH))
        self.apply()
        expected, _ = make_starter.starter(HOOKED, "01_session", PATH, student=True)
        self.assertEqual(expected, read(self.copy, PATH))

    def test_applying_twice_changes_nothing_the_second_time(self):
        self.apply()
        once = read(self.copy, PATH)
        self.assertIn("already as released", self.apply())
        self.assertEqual(once, read(self.copy, PATH))
        self.assertFalse(os.path.exists(
            os.path.join(self.copy, "lab_backups/03_hooked", PATH + ".1")))

    def assert_refused(self, damaged, *expected):
        write(self.copy, PATH, damaged)
        other_before = read(self.copy, OTHER_PATH)
        with self.assertRaises(release.ReleaseError) as raised:
            self.apply()
        for text in expected:
            self.assertIn(text, str(raised.exception))
        self.assertIn("nothing was changed", str(raised.exception))
        self.assertEqual(damaged, read(self.copy, PATH))
        self.assertEqual(other_before, read(self.copy, OTHER_PATH))
        self.assertFalse(os.path.exists(os.path.join(self.copy, "lab_backups")))

    def test_a_deleted_end_marker_is_refused(self):
        text = read(self.copy, PATH)
        lines = text.splitlines(keepends=True)
        last_end = max(i for i, l in enumerate(lines) if "[mts:lab-end]" in l)
        self.assert_refused("".join(lines[:last_end] + lines[last_end + 1:]),
                            PATH, "never closed")

    def test_a_deleted_opening_marker_is_refused(self):
        text = read(self.copy, PATH)
        marker = "  // [mts:lab 03_hooked]\n"
        at = text.rfind(marker)
        self.assert_refused(text[:at] + text[at + len(marker):], PATH, "without its")

    def test_a_region_in_another_function_is_refused(self):
        damaged = read(self.copy, PATH).replace("HookedSession::HandBack()",
                                                "HookedSession::GiveBack()")
        self.assert_refused(damaged, PATH, "HookedSession::HandBack", "HookedSession::GiveBack")

    def test_a_missing_file_is_refused(self):
        os.remove(os.path.join(self.copy, OTHER_PATH))
        before = read(self.copy, PATH)
        with self.assertRaises(release.ReleaseError) as raised:
            self.apply()
        self.assertIn(OTHER_PATH + ": not in this copy", str(raised.exception))
        self.assertEqual(before, read(self.copy, PATH))

    def test_make_refuses_what_it_must(self):
        with self.assertRaisesRegex(release.ReleaseError, "no lab named 03_hoked; the labs"):
            release.make("03_hoked", os.path.join(self.tmp, "x"), self.reference)
        with self.assertRaisesRegex(release.ReleaseError, "inside the tree"):
            release.make("03_hooked", os.path.join(self.reference, "x"), self.reference)
        with self.assertRaisesRegex(release.ReleaseError, "not an empty folder"):
            release.make("03_hooked", self.out, self.reference)
        write(self.copy, "tools/labs/STUDENT_COPY", "")
        with self.assertRaisesRegex(release.ReleaseError, "student copy"):
            release.make("03_hooked", os.path.join(self.tmp, "y"), self.copy)

    def test_the_release_holds_no_other_labs_code(self):
        with open(os.path.join(self.out, "release.json"), encoding="utf-8") as f:
            text = f.read()
        diff = read(self.out, "lab_03_hooked.diff")
        for shipped in (text, diff):
            self.assertIn("Merge(x);", shipped)
            self.assertNotIn("int y = x + 1;", shipped)  # Lab 01's body.

    def test_the_command_line_refuses_with_status_1(self):
        os.remove(os.path.join(self.copy, OTHER_PATH))
        done = subprocess.run(
            [sys.executable, os.path.join(HERE, "release.py"), "--root", self.copy, "apply",
             self.out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
        self.assertEqual(1, done.returncode)
        self.assertIn("apply_release: cannot apply the release of lab 03_hooked; nothing "
                      "was changed", done.stderr)


if __name__ == "__main__":
    unittest.main()
