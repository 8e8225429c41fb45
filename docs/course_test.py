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

Every such page (index.md, learning.md, ...) has a quiz, `quiz.md` for index.md and
`quiz_NAME.md` for NAME.md, in the page's toctree: a `## Questions` section of five
numbered questions. Its key is a section of docs/answer_keys/quizzes.md titled with the
quiz's path, holding five answers (`### 1.` to `### 5.`), each with a `*Where:*` line whose
«titles» are headings of the chapter's pages, and, where a test shows the answer, a
`*Shown by:*` line whose `Suite.Case` in `path` cases exist in those files. A student copy
has no answer keys (tools/export_student_copy.sh leaves them out): there the keys are not
checked, and the test says so.

Every lab page (chapters/NN_stage/lab*.md) has a `## First run` section (what the first
`tools/grade.sh LAB` shows, in a text block) and a `## Stuck?` section of exactly three
`###` questions, each answered below it.

Also: docs/tensorflow_names.md names every class and struct defined in a header of src/
(sub-packages included) and of the book's call tracer (tools/tracing);
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


QUIZ_KEY = "docs/answer_keys/quizzes.md"
TEST_CASE_RE = re.compile(r"\b(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def headings(text):
    """Every Markdown heading of a page (any level), fenced blocks left out."""
    out, fence = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```") or stripped.startswith(":::"):
            marker = stripped[:3]
            if fence is None:
                fence = marker
            elif fence == marker and stripped == marker:
                fence = None
        elif fence is None:
            m = re.match(r"^#{1,6} (.*)$", line)
            if m:
                out.append(m.group(1).strip())
    return out


def quiz_name(page):
    """chapters/NN/index.md -> quiz, chapters/NN/learning.md -> quiz_learning."""
    base = os.path.splitext(os.path.basename(page))[0]
    return "quiz" if base == "index" else "quiz_" + base


def check_quiz(page, failures):
    """The page's quiz: it exists, is in the page's toctree, and asks five questions.
    Returns the quiz's path."""
    quiz = os.path.join(os.path.dirname(page), quiz_name(page) + ".md")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if not re.search(r"```\{toctree\}[^`]*^%s$" % re.escape(quiz_name(page)), text, re.M):
        failures.append("%s: its quiz %s is not in the page's toctree" % (page, quiz))
    if not os.path.isfile(quiz):
        failures.append("%s: no quiz; write %s (## Questions, five numbered questions)"
                        % (page, quiz))
        return quiz
    with open(quiz, encoding="utf-8") as f:
        body = dict(sections(f.read())).get("Questions")
    numbers = re.findall(r"^(\d+)\. \S", body or "", re.M)
    if numbers != ["1", "2", "3", "4", "5"]:
        failures.append("%s: its `## Questions` must number five questions 1. to 5. (found %s)"
                        % (quiz, numbers or "none"))
    return quiz


def check_quiz_keys(quizzes, failures):
    """Each quiz's key in docs/answer_keys/quizzes.md, its sections and test cases."""
    with open(QUIZ_KEY, encoding="utf-8") as f:
        keys = {title.strip("`"): body for title, body in sections(f.read())}
    for quiz in quizzes:
        if quiz not in keys:
            failures.append("%s: no section `## \\`%s\\`` with the quiz's answers" % (QUIZ_KEY, quiz))
            continue
        chapter = os.path.dirname(quiz)
        titles = set()
        for page in glob.glob(os.path.join(chapter, "*.md")):
            if not os.path.basename(page).startswith("quiz"):
                with open(page, encoding="utf-8") as f:
                    titles.update(headings(f.read()))
        answers = re.split(r"^### ", keys[quiz], flags=re.M)[1:]
        numbers = [a.split(".", 1)[0] for a in answers]
        if numbers != ["1", "2", "3", "4", "5"]:
            failures.append("%s, %s: five answers `### 1.` to `### 5.` (found %s)"
                            % (QUIZ_KEY, quiz, numbers or "none"))
        for answer in answers:
            where = "%s, %s, answer %s" % (QUIZ_KEY, quiz, answer.split(".", 1)[0])
            lines = {line.split(":*", 1)[0].strip("* "): line for line in answer.splitlines()
                     if line.startswith("*") and ":*" in line}
            cited = re.findall(r"«([^»]+)»", lines.get("Where", ""))
            if not cited:
                failures.append("%s: no `*Where:*` line naming a «section» of %s" % (
                    where, chapter))
            for title in cited:
                if title not in titles:
                    failures.append("%s: «%s» is not a heading of %s" % (where, title, chapter))
            for case, path in re.findall(r"`(\w+\.\w+)` in `([^`]+)`",
                                         lines.get("Shown by", "")):
                if not os.path.isfile(path):
                    failures.append("%s: cites %s, which is not among the test's data; add "
                                    "it to QUIZ_TEST_SOURCES in docs/BUILD" % (where, path))
                    continue
                with open(path, encoding="utf-8") as f:
                    defined = {"%s.%s" % pair for pair in TEST_CASE_RE.findall(f.read())}
                if case not in defined:
                    failures.append("%s: %s defines no test case %s" % (where, path, case))
    for title in keys:
        if title not in quizzes:
            failures.append("%s: a key for %s, which is no quiz page" % (QUIZ_KEY, title))


def check_lab_page(page, failures):
    with open(page, encoding="utf-8") as f:
        body = dict(sections(f.read()))
    if not text_blocks(body.get("First run", "")):
        failures.append("%s: no `## First run` section quoting, in a text block, what the "
                        "first `tools/grade.sh` of the lab shows" % page)
    stuck = body.get("Stuck?")
    questions = re.findall(r"^### (.*)$", stuck or "", re.M)
    if len(questions) != 3 or not all(q.endswith("?") for q in questions):
        failures.append("%s: `## Stuck?` must ask three questions as `### ...?` headings, each "
                        "answered below it (found %s)" % (page, questions or "none"))


def main():
    if not os.path.isfile("docs/conf.py"):
        print("course_test: run me from the top of the tree")
        return 2
    failures = []
    chapters = sorted(d for d in glob.glob("chapters/[0-9][0-9]_*") if os.path.isdir(d))
    if not chapters:
        failures.append("no chapters found")
    quizzes = []
    labs = 0
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
            quizzes.append(check_quiz(page, failures))
        for page in sorted(glob.glob(os.path.join(chapter, "lab*.md"))):
            labs += 1
            check_lab_page(page, failures)
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
    headers = glob.glob("src/**/*.h", recursive=True) + glob.glob("tools/tracing/*.h")
    for header in sorted(headers):
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

    if os.path.isfile(QUIZ_KEY):
        check_quiz_keys(quizzes, failures)
        keys = "their answers in %s" % QUIZ_KEY
    elif glob.glob("docs/answer_keys/*.md"):
        failures.append("%s is missing: the quizzes' answers" % QUIZ_KEY)
        keys = "no key"
    else:
        keys = "no answer keys here (a student copy), so the answers were not checked"

    print("course_test: %d chapters, %d quizzes (%s), %d lab pages, %d classes of src/ on the "
          "TensorFlow names page" % (len(chapters), len(quizzes), keys, labs, classes))
    for f in failures:
        print("  " + f)
    if failures:
        print("course_test: %d problem(s)" % len(failures))
        return 1
    print("course_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
