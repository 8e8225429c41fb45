"""The student edition of the book: a quote of a lab's code shows the starter, not the answer.

The chapters quote the real source by marker (`literalinclude`), and some of that source is a
lab's answer: the bodies between `// [mts:lab NAME]` and `// [mts:lab-end]`
(tools/labs/make_starter.py). The teacher's edition, built in the reference tree, shows them
as they are. The student edition is built

- in a student copy, whose docs/STUDENT_EDITION lists the labs it hands out
  (tools/export_student_copy.sh --labs writes it, tools/labs/ship_book_outputs.py), or
- anywhere, with MTS_STUDENT_EDITION=all (or LAB,LAB) in the environment
  (`tools/build_book.sh --student`, //docs:student_edition_test).

In it, every `literalinclude` whose lines touch a region of a lab handed out is rewritten: the
region's body becomes the starter (the throw of UnimplementedError the student's copy holds,
made by make_starter.py itself), and a box follows, "You write this in lab NN", that names the
functions, links to the lab's page and shows the contract the lab's page quotes for them
(`[mts:lab-contract-...]` in the header). The directive replaces Sphinx's own, so a quote
added tomorrow is covered without anyone remembering to; //docs:student_edition_test builds
this edition and fails if any page holds a line of a region's reference body.
"""

import collections
import importlib.util
import os
import re

from docutils import nodes
from sphinx import addnodes
from sphinx.directives import code
from sphinx.directives.code import LiteralInclude, container_wrapper

EDITION_FILE = "docs/STUDENT_EDITION"
EDITION_ENV = "MTS_STUDENT_EDITION"

# A lab region of a source: its lab, the function it is the body of, the line numbers
# (0-based) of its two markers, and the starter's lines that replace its body.
Region = collections.namedtuple("Region", "lab function begin end starter")
# A contract the lab's page quotes: the header, its marker and the lines between the markers.
Contract = collections.namedtuple("Contract", "path marker text")

# A lab page's quote of a contract: ```{literalinclude} /PATH, then :option: lines.
CONTRACT_QUOTE = re.compile(r"```\{literalinclude\}\s+(\S+)\n((?:[ \t]*:[\w-]+:.*\n)*)")
START_AFTER = re.compile(r':start-after:\s*"?(\[mts:lab-contract-[\w-]+\])"?')
# Appended to each line to find out which lines Sphinx's own option handling selects.
LINE_TAG = "\x00mts-line-"


def edition_labs(srcdir):
    """The labs this build hands out: a set of names, "all", or empty (the teacher's
    edition). The environment wins over the tree's docs/STUDENT_EDITION."""
    value = os.environ.get(EDITION_ENV)
    if value is None:
        try:
            with open(os.path.join(srcdir, EDITION_FILE), encoding="utf-8") as f:
                value = ",".join(line.strip() for line in f
                                 if line.strip() and not line.startswith("#"))
        except FileNotFoundError:
            value = ""
    names = {name.strip() for name in value.split(",") if name.strip()}
    return "all" if "all" in names else frozenset(names)


def load_make_starter(srcdir):
    """tools/labs/make_starter.py of the tree: the one definition of regions and starters."""
    path = os.path.join(srcdir, "tools", "labs", "make_starter.py")
    spec = importlib.util.spec_from_file_location("mts_make_starter", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def lab_regions(text, src_path, make_starter):
    """Every lab region of `text`, each with the starter lines make_starter writes for it."""
    lines = text.splitlines(keepends=True)
    found = []
    function, opened = None, None
    for number, line in enumerate(lines):
        begin = make_starter.BEGIN.match(line)
        if opened is None and not begin:
            match = make_starter.FUNCTION.match(line)
            function = match.group(1) if match else function
        if begin:
            opened = (number, begin.group(2), function)
        elif make_starter.END.match(line) and opened is not None:
            found.append(Region(opened[1], opened[2], opened[0], number, []))
            opened = None
    # The starter of each lab's file, cut back into one body per region, in order.
    for lab in sorted({region.lab for region in found}):
        starter, _ = make_starter.starter(text, lab, src_path)
        bodies, body = [], None
        for line in starter.splitlines(keepends=True):
            begin = make_starter.BEGIN.match(line)
            if begin and begin.group(2) == lab:
                body = []
            elif body is not None and make_starter.END.match(line):
                bodies.append(body)
                body = None
            elif body is not None:
                body.append(line)
        for region, starter_body in zip([r for r in found if r.lab == lab], bodies):
            region.starter.extend(starter_body)
    return found


class _NumberedReader(code.LiteralIncludeReader):
    """Sphinx's reader over lines tagged with their number, to see which it selects."""

    def read_file(self, filename, location=None):
        lines = super().read_file(filename, location=location)
        return ["%s%s%d\n" % (line.rstrip("\n"), LINE_TAG, number)
                for number, line in enumerate(lines)]


def selected_lines(filename, options, config):
    """The numbers (0-based) of the lines a literalinclude with `options` shows."""
    reader = _NumberedReader(filename, options, config)
    lines = reader.read_file(filename)
    for select in (reader.pyobject_filter, reader.start_filter, reader.end_filter,
                   reader.lines_filter):
        lines = select(lines)
    return [int(line.rstrip("\n").rsplit(LINE_TAG, 1)[1]) for line in lines]


def student_lines(lines, selected, regions):
    """The selected lines, each region's body (or the part selected) replaced by its starter."""
    out, replaced = [], set()
    for number in selected:
        region = next((r for r in regions if r.begin < number < r.end), None)
        if region is None:
            out.append(lines[number] if lines[number].endswith("\n") else lines[number] + "\n")
        elif region.begin not in replaced:
            out.extend(region.starter)
            replaced.add(region.begin)
    return out


def lab_page_contracts(srcdir, page):
    """The lab page's heading and the contracts it quotes (`[mts:lab-contract-...]`)."""
    with open(os.path.join(srcdir, page), encoding="utf-8") as f:
        text = f.read()
    heading = text.splitlines()[0].lstrip("# ").strip()
    contracts = []
    for quote in CONTRACT_QUOTE.finditer(text):
        marker = START_AFTER.search(quote.group(2))
        if not marker:
            continue
        path = quote.group(1).lstrip("/")
        with open(os.path.join(srcdir, path), encoding="utf-8") as f:
            header = f.read().splitlines()
        start = marker.group(1)
        end = start[:-1] + "-end]"
        first = next(i for i, line in enumerate(header) if line.rstrip().endswith(start))
        last = next(i for i, line in enumerate(header) if line.rstrip().endswith(end))
        body = header[first + 1:last]
        indent = min(len(line) - len(line.lstrip()) for line in body if line.strip())
        contracts.append(Contract(path, start, "\n".join(line[indent:] for line in body)))
    return heading, contracts


def contracts_for(contracts, functions, src_path):
    """The contracts that declare one of `functions`; else those of the header beside the
    source; else all of the lab's."""
    chosen = []
    for function in functions:
        name = re.escape(function.split("::")[-1])
        match = [c for c in contracts if re.search(r"\b%s\(" % name, c.text)]
        if not match:
            header = os.path.splitext(src_path)[0] + ".h"
            match = [c for c in contracts if c.path == header] or contracts
        chosen.extend(c for c in match if c not in chosen)
    return chosen


class LabAwareLiteralInclude(LiteralInclude):
    """Sphinx's literalinclude; in the student edition, a quote of a lab's code shows the
    starter and a "You write this in lab NN" box."""

    def run(self):
        rel_path, path = self.env.relfn2path(self.arguments[0])
        if not path.endswith((".cc", ".h")) or not os.path.exists(path):
            return super().run()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # An exercise's regions (its starter.cc, derived from its solution) are not a lab's:
        # the book only ever quotes the starter, which is already what the student sees.
        if "[mts:lab " not in text or "/exercises/" in rel_path:
            return super().run()
        try:
            return self._run_over_labs(text, rel_path, path)
        except (OSError, ValueError, StopIteration) as e:  # A malformed region or lab page.
            return [self.state.document.reporter.warning(
                "%s: a lab region or its lab page cannot be read: %s" % (rel_path, str(e) or
                "a contract's end marker is missing"), line=self.lineno)]

    def _run_over_labs(self, text, rel_path, path):
        make_starter = load_make_starter(self.env.srcdir)
        src_path = rel_path.lstrip("/")
        regions = lab_regions(text, src_path, make_starter)
        # In every edition: a student copy must be able to build the same page.
        inside = self._marker_inside_region(text, regions, src_path)
        if inside:
            return [self.state.document.reporter.warning(inside, line=self.lineno)]
        labs = getattr(self.env.app, "mts_student_labs", frozenset())
        regions = [r for r in regions if labs == "all" or r.lab in labs]
        if not regions:
            return super().run()
        try:
            selected = selected_lines(path, self.options, self.config)
        except Exception:  # A pattern not found, say: Sphinx's own run reports it.
            return super().run()
        touched = [r for r in regions if any(r.begin <= n <= r.end for n in selected)]
        if not touched:
            return super().run()
        shown = student_lines(text.splitlines(keepends=True), selected, touched)
        result = self._run_with_lines(shown)
        for lab in sorted({r.lab for r in touched}):
            functions = [r.function for r in touched if r.lab == lab]
            result.append(self._lab_box(make_starter, lab, functions, src_path))
        return result

    def _marker_inside_region(self, text, regions, src_path):
        """Why the quote cannot be built in a student copy, or None: a marker it starts or
        ends at lies inside a lab region, and the copy's starter has no such line."""
        lines = text.splitlines()
        for option in ("start-after", "start-at", "end-before", "end-at"):
            pattern = self.options.get(option)
            found = [n for n, line in enumerate(lines) if pattern and pattern in line]
            region = next((r for r in regions if found and r.begin < found[0] < r.end), None)
            if region is not None:
                return ("%s %s is inside lab %s's region of %s (%s:%d): a student copy holds "
                        "the starter there, without that line. Quote the whole function, "
                        "between markers outside the region, instead (the student edition then "
                        "shows its starter)." % (option, pattern, region.lab, region.function,
                                                 src_path, found[0] + 1))
        return None

    def _run_with_lines(self, shown):
        """Sphinx's own run (caption, language, names), on `shown` instead of the file's
        lines; only the options that reshape lines (dedent, prepend, append) still apply."""

        class Reader(code.LiteralIncludeReader):
            def read(self, location=None):
                lines = shown
                for reshape in (self.dedent_filter, self.prepend_filter, self.append_filter):
                    lines = reshape(lines, location=location)
                return "".join(lines), len(lines)

        sphinx_reader = code.LiteralIncludeReader
        code.LiteralIncludeReader = Reader
        try:
            return super().run()
        finally:
            code.LiteralIncludeReader = sphinx_reader

    def _lab_box(self, make_starter, lab, functions, src_path):
        page = make_starter.lab_page(lab, src_path)
        heading, contracts = lab_page_contracts(self.env.srcdir, page)
        label = heading.split(" · ")[0]
        name = label[0].lower() + label[1:]  # "lab 03", "lab 01 (learning)"

        box = nodes.admonition(classes=["note", "mts-you-write-this"])
        box += nodes.title(text="You write this in %s" % name)
        listed = [nodes.literal(text=f) for f in functions]
        intro = nodes.paragraph()
        for i, literal in enumerate(listed):
            if i:
                intro += nodes.Text(" and " if i == len(listed) - 1 else ", ")
            intro += literal
        intro += nodes.Text(
            " %s yours to write in %s: this edition of the book shows the starter, as your "
            "copy holds it. The lab's page, " % ("are" if len(listed) > 1 else "is", name))
        link = addnodes.pending_xref("", refdomain="std", reftype="doc",
                                     reftarget="/" + os.path.splitext(page)[0],
                                     refexplicit=False, refwarn=True,
                                     refdoc=self.env.docname)
        link += nodes.inline(text=heading)
        intro += link
        chosen = contracts_for(contracts, functions, src_path)
        intro += nodes.Text(", says where to start%s" % ("; the code keeps this contract:"
                                                         if chosen else "."))
        box += intro

        shown = self.env.temp_data.setdefault("mts_contracts_shown", set())
        for contract in chosen:
            if (contract.path, contract.marker) in shown:
                again = nodes.paragraph()
                again += nodes.Text("the contract from ")
                again += nodes.literal(text=contract.marker)
                again += nodes.Text(", shown above on this page.")
                box += again
                continue
            shown.add((contract.path, contract.marker))
            literal = nodes.literal_block(contract.text, contract.text, language="cpp")
            self.set_source_info(literal)
            caption = "`%s`, from `%s`" % (contract.path, contract.marker)
            box += container_wrapper(self, literal, caption)
        return box


def setup(app):
    app.mts_student_labs = edition_labs(app.srcdir)
    app.add_directive("literalinclude", LabAwareLiteralInclude, override=True)
    return {"parallel_read_safe": True}
