#!/usr/bin/python3
"""The student edition of the book holds no lab's answer (docs/student_edition.py).

    bazel test //docs:student_edition_test      builds the student edition of every lab
                                                (MTS_STUDENT_EDITION=all) and checks it
    docs/student_edition_test.py HTML_DIR       checks a book already built, e.g. the one
                                                `tools/build_book.sh` made in a student copy

The answer is the reference body of each lab region of src/ (`// [mts:lab NAME]` ...
`// [mts:lab-end]`). Every line of such a body that is long enough to mean something and
appears nowhere else in the tree (outside the labs' regions a quote may show it as it is) is
a line of the answer; no page of the student edition may contain one. And where a page shows
a lab's starter, it must also say "You write this in lab ..." with a link to the lab's page
and the contract; chapter 03's "How a run is merged" is checked by name.

In a student copy the regions hold their starters, so there is no answer to look for: only
the second half runs.
"""

import glob
import html
import html.parser
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import student_edition  # noqa: E402  (docs/student_edition.py, beside this file)

SHORTEST = 20  # A body line shorter than this ("return;", "}") says nothing of the answer.
# Where else a line may legitimately appear, and so be quoted as it is.
TREE_FILES = ("src", "tests", "chapters", "examples", "tools")
TREE_SUFFIXES = (".cc", ".h", ".md", ".py", ".bzl", ".txt", ".sh")


def normalized(text):
    return " ".join(text.split())


class _Text(html.parser.HTMLParser):
    """A page's text as a reader sees it: tags dropped, entities decoded, no scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(page_html):
    """The page's text, each line's whitespace collapsed (code keeps its lines)."""
    parser = _Text()
    parser.feed(page_html)
    return "\n".join(normalized(line) for line in "".join(parser.parts).splitlines())


def tree_regions(tree, labs):
    """(source path, its lines, its regions) for every source of src/ with regions of
    `labs` (a set of names, or "all")."""
    make_starter = student_edition.load_make_starter(tree)
    found = []
    for path in sorted(glob.glob(os.path.join(tree, "src", "**", "*.cc"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        rel = os.path.relpath(path, tree)
        regions = [r for r in student_edition.lab_regions(text, rel, make_starter)
                   if labs == "all" or r.lab in labs]
        if regions:
            found.append((rel, text.splitlines(), regions))
    return found


def answer_lines(tree, sources):
    """{normalized line: (source, line number, lab)} of the regions' reference bodies: the
    lines no file shows outside the regions, not even as part of a longer line."""
    outside = []
    bodies = {}
    in_body = {(rel, n) for rel, _, regions in sources for r in regions
               for n in range(r.begin + 1, r.end)}
    for top in TREE_FILES:
        for path in glob.glob(os.path.join(tree, top, "**", "*"), recursive=True):
            if not path.endswith(TREE_SUFFIXES) or not os.path.isfile(path):
                continue
            rel = os.path.relpath(path, tree)
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(f.read().splitlines()):
                    if (rel, n) not in in_body:
                        outside.append(normalized(line))
    outside = "\n".join(outside)
    for rel, lines, regions in sources:
        for r in regions:
            starter = {normalized(line) for line in r.starter}
            body = [normalized(lines[n]) for n in range(r.begin + 1, r.end)]
            probes = [(line, n) for n, line in enumerate(body, r.begin + 2)
                      if len(line) >= SHORTEST and line not in outside and line not in starter]
            # A body of common lines (a lock and a return) is looked for as a whole.
            whole = "\n".join(line for line in body if line)
            if not probes and body != [normalized(line) for line in r.starter] and \
                    whole not in outside:
                probes = [(whole, r.begin + 2)]
            for probe, number in probes:
                bodies.setdefault(probe, (rel, number, r.lab))
    return bodies


def pages(html_dir):
    for path in sorted(glob.glob(os.path.join(html_dir, "**", "*.html"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            yield os.path.relpath(path, html_dir), f.read()


def leaks(page_texts, answers):
    """[(page, source, line number, lab, line)] for every answer line a page shows."""
    found = []
    for page, text in page_texts:
        for line, (rel, number, lab) in answers.items():
            if line in text:
                found.append((page, rel, number, lab, line))
    return found


def check_leak_finder(answers):
    """The check itself must be able to fail: a page that shows an answer line, highlighted
    as Pygments does, is caught."""
    line = next(iter(answers))
    tokens = "".join('<span class="n">%s</span> ' % html.escape(word) for word in line.split())
    caught = leaks([("probe.html", page_text("<pre>%s</pre>" % tokens))], answers)
    return bool(caught)


def check_boxes(html_dir, sources):
    """Every page that shows a lab's starter says whose it is; chapter 03 by name."""
    errors = []
    starters = {}  # the starter's distinctive line -> lab
    for _, _, regions in sources:
        for r in regions:
            starters[normalized(r.starter[0])] = r.lab
    texts = dict((page, (raw, page_text(raw))) for page, raw in pages(html_dir))
    for page, (raw, text) in texts.items():
        shown = {lab for line, lab in starters.items() if line in text}
        if shown and "You write this in lab" not in text:
            errors.append("%s shows the starter of %s without a \"You write this in lab\" box"
                          % (page, ", ".join(sorted(shown))))
    chapter = texts.get(os.path.join("chapters", "03_hooked", "index.html"))
    if chapter is None:
        return errors + ["no chapters/03_hooked/index.html in the book"]
    raw, _ = chapter
    anchor = raw.find('id="how-a-run-is-merged"')
    if anchor < 0:
        return errors + ["chapter 03 has no section \"How a run is merged\""]
    section = page_text(raw[anchor:])
    for expected in ("HookedSession::Run is yours to write", "You write this in lab 03",
                     "[mts:lab-contract-hooked-run]", "Lab 03 · Write HookedSession::Run"):
        if expected not in section:
            errors.append("chapter 03's \"How a run is merged\" lacks %r" % expected)
    if 'href="lab.html"' not in raw:
        errors.append("chapter 03 does not link to its lab's page (lab.html)")
    return errors


def build(out):
    done = subprocess.run(["docs/make_book.sh", out], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, check=False)
    if done.returncode != 0:
        print(done.stdout)
        sys.exit("FAIL: the student edition did not build")
    return os.path.join(out, "html")


def main(argv):
    tree = os.getcwd() if len(argv) < 3 else argv[2]
    if len(argv) > 1:
        html_dir = argv[1]
    else:  # The test: the student edition of every lab, built here.
        os.environ[student_edition.EDITION_ENV] = "all"
        html_dir = build(os.path.join(os.environ["TEST_TMPDIR"], "book"))
    labs = student_edition.edition_labs(tree)
    if not labs:
        print("FAIL: %s builds the teacher's edition (no %s, no %s set): nothing to check"
              % (tree, student_edition.EDITION_FILE, student_edition.EDITION_ENV))
        return 1
    sources = tree_regions(tree, labs)
    if not sources:
        print("FAIL: no region of the labs %s in %s/src: nothing to check" % (labs, tree))
        return 1
    answers = answer_lines(tree, sources)
    errors = []
    if answers:
        if not check_leak_finder(answers):
            errors.append("the leak check does not catch a highlighted answer line")
        for page, rel, number, lab, line in leaks(
                ((page, page_text(raw)) for page, raw in pages(html_dir)), answers):
            errors.append("%s shows line %d of %s, lab %s's answer: %s"
                          % (page, number, rel, lab, line))
        # Each region must give the check something to look for.
        covered = {(rel, number) for rel, number, _ in answers.values()}
        covered = {(rel, r.begin) for rel, _, regions in sources for r in regions
                   if any((rel, n) in covered for n in range(r.begin + 2, r.end + 1))}
        for rel, _, regions in sources:
            for r in regions:
                if (rel, r.begin) not in covered:
                    errors.append("%s:%d: %s's region has no line the check can look for"
                                  % (rel, r.begin + 1, r.function))
    errors += check_boxes(html_dir, sources)
    for error in errors:
        print("FAIL: " + error)
    if errors:
        return 1
    print("PASS: %d lines of %d lab regions' answers, on no page; every starter shown says "
          "whose lab it is" % (len(answers), sum(len(r) for _, _, r in sources)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
