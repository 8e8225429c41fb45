#!/usr/bin/python3
"""Checks that the book is shaped as a course (run from the top of the tree).

    bazel test //docs:course_test        or        /usr/bin/python3 docs/course_test.py

Every chapter (chapters/NN_stage/index.md, and any other page of the chapter that has
exercises) must have, as `##` headings and in this order:

    ## What you will be able to do      the first `##` heading, with a list
    ## Recap                            a list
    ## Build and test this chapter alone
                                        a text block of `bazel test` commands naming
                                        //chapters/NN_stage/... and, when src/NN_stage
                                        exists, //tests/NN_stage/...
    ## Exercises                        `### Exercise` headings; each exercise folder of
                                        the chapter is named, with its starter command

Also: docs/tensorflow_names.md names every class and struct defined in a header of src/;
docs/instructors_guide.md (the course plan) and README.md (the guide to the code) name
every chapter. Under Bazel the tree is the book's inputs (docs/BUILD BOOK_INPUTS), so a
stage is checked from the moment it joins the book.
"""

import glob
import os
import re
import sys

HEADINGS = [
    "What you will be able to do",
    "Recap",
    "Build and test this chapter alone",
    "Exercises",
]
CLASS_RE = re.compile(r"^(?:class|struct) ([A-Za-z_][A-Za-z0-9_]*)(?: final)?\s*(?::[^:]|\{|$)",
                      re.M)


def sections(text):
    """The `##` sections of a page: [(title, body)], fenced blocks not mistaken for titles."""
    out = []
    fence = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith(":::"):
            marker = stripped[:3]
            if fence is None:
                fence = marker
            elif fence == marker and stripped == marker:
                fence = None
        if fence is None and line.startswith("## "):
            out.append([line[3:].strip(), ""])
        elif out:
            out[-1][1] += line + "\n"
    return out


def text_blocks(body):
    return re.findall(r"```text\n(.*?)```", body, re.S)


def check_page(path, stage, failures):
    def fail(what):
        failures.append("%s: %s" % (path, what))

    with open(path, encoding="utf-8") as f:
        text = f.read()
    secs = sections(text)
    titles = [t for t, _ in secs]
    if not titles or titles[0] != HEADINGS[0]:
        fail("the first ## heading must be '## %s' (found %r)"
             % (HEADINGS[0], titles[0] if titles else None))
    body = dict(secs)
    positions = []
    for h in HEADINGS:
        if h not in titles:
            fail("no '## %s' section" % h)
            return body.get("Exercises", "")
        positions.append(titles.index(h))
    if positions != sorted(positions):
        fail("the sections must come in the order: " + ", ".join(HEADINGS))
    if positions[2] != positions[1] + 1 or positions[3] != positions[2] + 1:
        fail("'## Recap', '## Build and test this chapter alone' and '## Exercises' must follow"
             " one another, at the end of the chapter")
    for h in (HEADINGS[0], "Recap"):
        if not re.search(r"^- ", body[h], re.M):
            fail("'## %s' has no list" % h)
    commands = [line.strip() for block in text_blocks(body["Build and test this chapter alone"])
                for line in block.splitlines() if line.strip()]
    if not commands:
        fail("'## Build and test this chapter alone' shows no command in a text block")
    for c in commands:
        if not c.startswith("bazel test "):
            fail("the chapter's build command must be a `bazel test`: %r" % c)
    joined = " ".join(commands)
    if "//chapters/%s/..." % stage not in joined:
        fail("the build command does not name //chapters/%s/..." % stage)
    if os.path.isdir(os.path.join("src", stage)) and "//tests/%s/..." % stage not in joined:
        fail("the build command does not name //tests/%s/..." % stage)
    for pattern in re.findall(r"//([A-Za-z0-9_/]+)/\.\.\.", joined):
        top = pattern.split("/")[0]
        if top in ("chapters", "src") and not os.path.isdir(pattern):
            fail("the build command names //%s/..., which does not exist" % pattern)
    exercises = body["Exercises"]
    if "### Exercise" not in exercises:
        fail("'## Exercises' has no '### Exercise' heading")
    return exercises


def main():
    if not os.path.isfile("docs/conf.py"):
        print("course_test: run me from the top of the tree")
        return 2
    failures = []
    chapters = sorted(d for d in glob.glob("chapters/[0-9][0-9]_*") if os.path.isdir(d))
    if not chapters:
        failures.append("no chapters found")
    for chapter in chapters:
        stage = os.path.basename(chapter)
        pages = [os.path.join(chapter, "index.md")]
        pages += sorted(p for p in glob.glob(os.path.join(chapter, "*.md"))
                        if p not in pages and "## Exercises" in open(p, encoding="utf-8").read())
        exercise_text = ""
        for page in pages:
            if not os.path.isfile(page):
                failures.append("%s: no index.md" % chapter)
                continue
            exercise_text += check_page(page, stage, failures) or ""
        for folder in sorted(glob.glob(os.path.join(chapter, "exercises", "*"))):
            name = os.path.basename(folder)
            target = "//%s/exercises/%s" % (chapter, name)
            if not re.search(r"bazel test --define=exercises=starter %s[:/]" % re.escape(target),
                             exercise_text):
                failures.append("%s: the exercise %s is not stated with its command "
                                "`bazel test --define=exercises=starter %s:all`"
                                % (chapter, name, target))

    with open("docs/tensorflow_names.md", encoding="utf-8") as f:
        names_page = f.read()
    classes = 0
    for header in sorted(glob.glob("src/**/*.h", recursive=True)):
        with open(header, encoding="utf-8") as f:
            for name in CLASS_RE.findall(f.read()):
                classes += 1
                if "`%s`" % name not in names_page:
                    failures.append("docs/tensorflow_names.md: no row for `%s` (%s); add its "
                                    "TensorFlow name, or (none)" % (name, header))

    for page in ("docs/instructors_guide.md", "README.md"):
        if not os.path.isfile(page):
            failures.append("%s is missing" % page)
            continue
        with open(page, encoding="utf-8") as f:
            text = f.read()
        for chapter in chapters:
            if os.path.basename(chapter) not in text:
                failures.append("%s does not name the chapter %s" % (page, chapter))

    print("course_test: %d chapters, %d classes of src/ on the TensorFlow names page"
          % (len(chapters), classes))
    for f in failures:
        print("  " + f)
    if failures:
        print("course_test: %d problem(s)" % len(failures))
        return 1
    print("course_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
