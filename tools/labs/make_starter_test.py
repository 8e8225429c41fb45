#!/usr/bin/python3
"""make_starter.py's rules, on small sources (bazel test //tools/labs:make_starter_test).

What a region becomes depends on where it lies: in a function body it throws, among
declarations it is left empty; a lab's throw points to the lab's page, an exercise's to its
header; the student's copy of an exercise says how to test it.
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_starter  # noqa: E402

EXERCISE = "chapters/04_coordinated/exercises/reader/solution.cc"

SOURCE = """\
#include "chapters/04_coordinated/exercises/reader/reader.h"

namespace mts {

// TODO(student): a hint the student must see.
// [mts:lab reader]
namespace {
int Helper() { return 42; }
}  // namespace
// [mts:lab-end]

struct Reader::State {
  // [mts:lab reader]
  int answer = 42;
  // [mts:lab-end]
};

std::function<void()> MakeReader(std::string path) {
  return [path] {
    // [mts:lab reader]
    Helper();
    // [mts:lab-end]
  };
}

int Reader::operator()(int x) const {
  // [mts:lab reader]
  return x + 42;
  // [mts:lab-end]
}

}  // namespace mts
"""


class MakeStarterTest(unittest.TestCase):

    def test_no_line_of_a_region_is_left_and_every_line_outside_is_kept(self):
        text, replaced = make_starter.starter(SOURCE, "reader", EXERCISE)
        self.assertEqual(replaced, 4)
        self.assertNotIn("42", text)
        self.assertIn("// TODO(student): a hint the student must see.\n", text)
        self.assertIn("struct Reader::State {\n", text)

    def test_a_region_among_declarations_is_left_empty(self):
        text, _ = make_starter.starter(SOURCE, "reader", EXERCISE)
        self.assertIn("// [mts:lab reader]\n// [mts:lab-end]\n", text)
        self.assertIn("struct Reader::State {\n  // [mts:lab reader]\n  // [mts:lab-end]\n};",
                      text)

    def test_a_region_in_a_function_body_throws_naming_the_function(self):
        text, _ = make_starter.starter(SOURCE, "reader", EXERCISE)
        # The `(` inside a template argument is not the function's; the message is cut into
        # pieces, one a line, so that a long name or path stays within 100 columns.
        self.assertIn('    throw UnimplementedError("exercise reader: "\n'
                      '                             "MakeReader is yours to write; see "\n'
                      '                             "chapters/04_coordinated/exercises/reader/"\n'
                      '                             "reader.h");\n', text)
        self.assertIn('  throw UnimplementedError("exercise reader: "\n'
                      '                           "Reader::operator() is yours to write; see "\n',
                      text)
        self.assertTrue(all(len(line) <= 100 for line in text.splitlines()), text)

    def test_the_students_copy_of_an_exercise_says_how_to_test_it(self):
        text, _ = make_starter.starter(SOURCE, "reader", EXERCISE, student=True)
        self.assertIn("bazel test //chapters/04_coordinated/exercises/reader:all", text)
        self.assertNotIn("grade.sh", text)

    def test_a_labs_throw_points_to_the_labs_page(self):
        source = "void HookedSession::Run() {\n  // [mts:lab 03_hooked]\n  Work();\n" \
                 "  // [mts:lab-end]\n}\n"
        text, replaced = make_starter.starter(source, "03_hooked",
                                              "src/03_hooked/hooked_session.cc")
        self.assertEqual(replaced, 1)
        self.assertIn('"lab 03_hooked: HookedSession::Run is yours to write; "', text)
        self.assertIn('"see chapters/03_hooked/lab.md");', text)
        self.assertNotIn("Work();", text)

    def test_regions_of_another_name_stay(self):
        text, replaced = make_starter.starter(SOURCE, "other", EXERCISE)
        self.assertEqual(replaced, 0)
        self.assertIn("return x + 42;", text)

    def test_a_region_without_its_end_is_refused(self):
        with self.assertRaisesRegex(ValueError, "has no \\[mts:lab-end\\]"):
            make_starter.starter("void F() {\n  // [mts:lab reader]\n}\n", "reader", EXERCISE)


if __name__ == "__main__":
    unittest.main()
