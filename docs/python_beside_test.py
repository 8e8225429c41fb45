#!/usr/bin/python3
"""Checks every "TF1 Python beside C++" pair of the book against the names page.

    bazel test //docs:python_beside_test    or    /usr/bin/python3 docs/python_beside_test.py

A pair is a `beside` block of a chapter (docs/conf.py): TensorFlow 1.x Python written for
the book, beside the mts C++ cut by marker from a program the build compiles and runs. For
each pair:

- the Python parses (it is real Python, not pseudo-code);
- every TensorFlow name it uses (`tf.X`, `tf.train.X`, `tf.errors.X`, ..., and a name it
  imports from a `tensorflow` module, such as `_HookedSession`) has a row on
  docs/tensorflow_names.md, and that row's mts name is used on the C++ side (where a row
  maps as many TensorFlow names as mts names, the one at the same place; otherwise any);
- every method it calls or overrides (`sess.run`, `def before_run`) and every keyword
  argument (`max_to_keep=3`) appears on the C++ side under the names page's rule (the same
  name in CamelCase for a method, the same name for an argument), or through a row of the
  names page that maps it; `name=`, `shape=` and `dtype=` of op functions are positional in
  mts, and the arguments of Python's own modules (`threading.Thread(target=...)`) are
  Python's: those are not checked;
- the chapters 01-07 each have three to six pairs, and every page with pairs opens them
  with the same block form.

Finally the checker is tried on a pair it must reject: a TensorFlow name the names page
does not map, and a method the C++ does not call; if it accepts either, the test fails.
"""

import ast
import glob
import os
import re
import sys

BESIDE_RE = re.compile(r"^(`{3,})\{beside\} (\S+) (\S+)\n(.*?)^\1\s*$", re.M | re.S)
NOT_CHECKED_KEYWORDS = {"name", "shape", "dtype"}
# Python's own modules: their calls are checked as methods (`threading.Thread` must be on the
# names page), their keyword arguments are Python's, not TensorFlow's.
PYTHON_MODULES = {"threading", "time", "os"}
RULE = "Methods keep their TensorFlow names in CamelCase"


def pairs_of(text):
    """[(cc_path, marker, python)] of a page's `beside` blocks (options lines dropped)."""
    out = []
    for m in BESIDE_RE.finditer(text):
        body = [line for line in m.group(4).splitlines() if not re.match(r"^:\w+:", line)]
        out.append((m.group(2), m.group(3), "\n".join(body)))
    return out


def cut(cc_text, marker):
    lines = cc_text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.rstrip().endswith("[mts:%s]" % marker)]
    ends = [i for i, line in enumerate(lines) if line.rstrip().endswith("[mts:%s-end]" % marker)]
    if len(starts) != 1 or len(ends) != 1:
        return None
    return "\n".join(lines[starts[0] + 1:ends[0]])


def names_table(page):
    """[(tf_spans, mts_names)] for every table row of the names page's first part."""
    rows = []
    for line in page.split("## Where mts deliberately differs")[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) < 2 or set(cells[0]) <= set("- "):
            continue
        tf_spans = [re.findall(r"[A-Za-z_][\w.]*", s) for s in re.findall(r"`([^`]+)`", cells[0])]
        mts_names = [re.match(r"[A-Za-z_]\w*", s).group(0)
                     for s in re.findall(r"`([^`]+)`", cells[1]) if re.match(r"[A-Za-z_]", s)]
        rows.append((tf_spans, mts_names))
    return rows


def short(name):
    for prefix in ("tf.compat.v1.train.", "tf.compat.v1.", "tf.train.", "tf.errors.", "tf."):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def tf_name_matches(name, span_names):
    """A TensorFlow name in the Python against the names of one backticked span."""
    for s in span_names:
        if s == name or ("." not in s and s == short(name)):
            return True
    return False


def method_matches(method, span_names):
    return any(s.split(".")[-1] == method for s in span_names)


def mapped(rows, matches, cpp_names):
    """True if some row maps the name (by `matches`) to an mts name the C++ uses."""
    for tf_spans, mts_names in rows:
        hits = [i for i, span in enumerate(tf_spans) if matches(span)]
        if not hits:
            continue
        if len(tf_spans) == len(mts_names):
            wanted = [mts_names[i] for i in hits]
        else:
            wanted = mts_names
        if any(n in cpp_names for n in wanted):
            return True
    return False


def camel(snake):
    return "".join(part[:1].upper() + part[1:] for part in snake.split("_"))


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def python_names(python):
    """(tf names, methods, keywords) the Python uses; raises SyntaxError if it is not Python."""
    tree = ast.parse(python)
    tf_names, methods, keywords = set(), set(), set()
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            name = dotted(node)
            if name and name.startswith("tf."):
                tf_names.add(name)
                sub = node.value
                while isinstance(sub, ast.Attribute):
                    inner.add(id(sub))
                    sub = sub.value
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Attribute):
                name = dotted(node.func)
                if not (name and name.startswith("tf.")):
                    methods.add(node.func.attr)
            root = (dotted(node.func) or "").split(".")[0]
            if root not in PYTHON_MODULES:
                keywords.update(k.arg for k in node.keywords if k.arg)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tensorflow"):
            tf_names.update(alias.name for alias in node.names)
        if isinstance(node, ast.ClassDef) and any((dotted(b) or "").startswith("tf.")
                                                  for b in node.bases):
            methods.update(f.name for f in node.body
                           if isinstance(f, ast.FunctionDef) and not f.name.startswith("__"))
    return tf_names, methods, keywords - NOT_CHECKED_KEYWORDS


def check_pair(where, python, cpp, rows):
    """The problems of one pair, as lines."""
    problems = []
    try:
        tf_names, methods, keywords = python_names(python)
    except SyntaxError as e:
        return ["%s: the Python side does not parse: %s" % (where, e)]
    cpp_names = set(re.findall(r"[A-Za-z_]\w*", cpp))
    for name in sorted(tf_names):
        if not mapped(rows, lambda span: tf_name_matches(name, span), cpp_names):
            problems.append("%s: `%s` has no row on docs/tensorflow_names.md whose mts name the "
                            "C++ side uses" % (where, name))
    for method in sorted(methods):
        if camel(method) in cpp_names:
            continue
        if not mapped(rows, lambda span: method_matches(method, span), cpp_names):
            problems.append("%s: the method `%s` is neither `%s` on the C++ side nor mapped by "
                            "the names page" % (where, method, camel(method)))
    for keyword in sorted(keywords):
        if keyword in cpp_names or camel(keyword) in cpp_names:
            continue
        if not mapped(rows, lambda span: method_matches(keyword, span), cpp_names):
            problems.append("%s: the argument `%s=` is not on the C++ side (as `%s`) nor mapped "
                            "by the names page" % (where, keyword, keyword))
    return problems


def self_check(rows):
    """The checker must reject a pair with an unmapped name or a method the C++ lacks."""
    cpp = "Saver saver;\nsaver.Save(sess, path);"
    good = "saver = tf.train.Saver()\nsaver.save(sess, path)"
    unmapped = "saver = tf.train.NoSuchSaver()\nsaver.save(sess, path)"
    wrong_method = "saver = tf.train.Saver()\nsaver.restore(sess, path)"
    failures = []
    if check_pair("self-check", good, cpp, rows):
        failures.append("the checker rejects a good pair: %s"
                        % check_pair("self-check", good, cpp, rows))
    if not check_pair("self-check", unmapped, cpp, rows):
        failures.append("the checker accepts tf.train.NoSuchSaver, which no row maps")
    if not check_pair("self-check", wrong_method, cpp, rows):
        failures.append("the checker accepts `restore` beside C++ that only calls Save")
    return failures


def main(argv):
    if not os.path.isfile("docs/conf.py"):
        print("python_beside_test: run me from the top of the tree")
        return 2
    with open("docs/tensorflow_names.md", encoding="utf-8") as f:
        names_page = f.read()
    rows = names_table(names_page)
    failures = []
    if RULE not in names_page:
        failures.append("docs/tensorflow_names.md no longer states the rule '%s...' this test "
                        "applies to methods" % RULE)
    pages = argv or sorted(glob.glob("chapters/*/*.md"))
    total = 0
    per_chapter = {}
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        if "{beside}" in text and not pairs_of(text):
            failures.append("%s: a `beside` block this test cannot read (write it as "
                            "```{beside} /path/to/file.cc pair-NAME)" % page)
        for cc_path, marker, python in pairs_of(text):
            total += 1
            chapter = page.split("/")[1]
            per_chapter[chapter] = per_chapter.get(chapter, 0) + 1
            where = "%s [%s]" % (page, marker)
            try:
                with open(cc_path.lstrip("/"), encoding="utf-8") as f:
                    cpp = cut(f.read(), marker)
            except OSError:
                cpp = None
            if cpp is None:
                failures.append("%s: no region `[mts:%s]` ... `[mts:%s-end]` in %s"
                                % (where, marker, marker, cc_path))
                continue
            failures += check_pair(where, python, cpp, rows)
    if not argv:
        for n in range(1, 8):
            chapter = [c for c in glob.glob("chapters/%02d_*" % n) if os.path.isdir(c)]
            name = os.path.basename(chapter[0]) if chapter else "%02d" % n
            count = per_chapter.get(name, 0)
            if not 3 <= count <= 6 + (1 if n == 1 else 0) * 6:
                failures.append("chapters/%s: %d Python-beside-C++ pairs; a chapter has 3 to 6 "
                                "(chapter 01, 3 to 6 on each of its two pages)" % (name, count))
    failures += self_check(rows)
    print("python_beside_test: %d pairs in %d pages checked against the names page"
          % (total, len(pages)))
    for f in failures:
        print("  " + f)
    if failures:
        print("python_beside_test: %d problem(s)" % len(failures))
        return 1
    print("python_beside_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
