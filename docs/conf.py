"""Sphinx configuration for the mts book.

The book is built from a tree shaped like the repository: the source directory is the
top of the tree (so a chapter quotes any file by a path starting with `/`, such as
`/src/01_session/session.h`) and this file sits in `docs/`, passed with `-c docs`.
Only `docs/*.md` and `chapters/*/*.md` are pages. docs/make_book.sh runs Doxygen first
and tells us where its XML is through MTS_DOXYGEN_XML.
"""

import os
import sys

# The student edition (docs/student_edition.py): in a student copy, or with
# MTS_STUDENT_EDITION set, a quote of a lab's code shows the starter and the lab's contract.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

project = "mts"
author = "the mts authors"
copyright = "the mts authors"

# The tree is the repository, so the root page lives at docs/index.
root_doc = "docs/index"
include_patterns = ["docs/*.md", "docs/api/*.md", "chapters/*/*.md"]
exclude_patterns = ["docs/README.md"]

extensions = [
    "myst_parser",
    "breathe",
    "sphinx.ext.graphviz",
    "student_edition",
]
source_suffix = {".md": "markdown"}
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# C++ is the language of every code block that does not say otherwise.
highlight_language = "cpp"
primary_domain = "cpp"

# Breathe reads Doxygen's XML of src/ (see docs/Doxyfile).
breathe_projects = {"mts": os.environ.get("MTS_DOXYGEN_XML", "")}
breathe_default_project = "mts"
breathe_default_members = ("members",)

graphviz_output_format = "svg"

html_theme = "sphinx_rtd_theme"
html_title = "mts: MonitoredTrainingSession, read closely"
html_theme_options = {"navigation_depth": 3}
# _extra/index.html sends a reader who opens the top of the HTML tree to docs/index.html.
html_extra_path = ["_extra"]
# _static/mts.css lets table cells wrap (the theme keeps them on one line, hiding columns).
html_static_path = ["_static"]
html_css_files = ["mts.css"]
# _static/mts_measure.js records each diagram's natural and shown width for browser_test.
html_js_files = ["mts_measure.js"]
html_show_sourcelink = False


# Class names link to their API entries. A reader who meets `HookedSession` in a chapter or
# in the names table can click through to what the class promises; nobody has to remember
# to write the link, and a class added later is linked everywhere the day it appears. The
# names come from Doxygen's index (every class and struct of the public headers); an inline
# literal that is exactly such a name, or `Name::member`, becomes a reference to the class.
def _class_names():
    index = os.path.join(os.environ.get("MTS_DOXYGEN_XML", ""), "index.xml")
    if not os.path.exists(index):
        return set()
    import xml.etree.ElementTree as ElementTree

    names = set()
    for compound in ElementTree.parse(index).getroot().iter("compound"):
        name = compound.findtext("name") or ""
        if compound.get("kind") in ("class", "struct") and name.startswith("mts::"):
            short = name[len("mts::"):]
            if "::" not in short and "<" not in short:
                names.add(short)
    return names


def _link_class_names(app, doctree):
    from docutils import nodes
    from sphinx import addnodes

    names = app.env.mts_class_names
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, (nodes.reference, addnodes.pending_xref, nodes.title)):
            continue
        text = literal.astext()
        name = text[len("mts::"):] if text.startswith("mts::") else text
        name = name.split("::")[0].removesuffix("()")
        if name not in names or not text.replace("::", "").replace("()", "").isidentifier():
            continue
        xref = addnodes.pending_xref(
            "", refdomain="cpp", reftype="class", reftarget="mts::" + name,
            refexplicit=True, refwarn=False, refdoc=app.env.docname)
        literal.replace_self(xref)
        xref += literal


def _break_paths_in_tables(app, doctree):
    """A path in a table cell may break after each '/' (an HTML <wbr>), so that a narrow
    cell wraps `src/01_session/` / `session.h` instead of breaking inside a word."""
    from docutils import nodes

    for literal in list(doctree.findall(nodes.literal)):
        text = literal.astext()
        if "/" not in text.strip("/") or not any(
                isinstance(a, nodes.table) for a in _ancestors(literal)):
            continue
        parts = text.split("/")
        literal.children = []
        for i, part in enumerate(parts):
            literal += nodes.Text(part + ("/" if i < len(parts) - 1 else ""))
            if i < len(parts) - 1 and parts[i + 1]:
                literal += nodes.raw("", "<wbr>", format="html")


def _ancestors(node):
    while node.parent is not None:
        node = node.parent
        yield node


def _load_class_names(app):
    app.env.mts_class_names = _class_names()


# TF1 Python beside C++: the `beside` directive shows, in two columns, the TensorFlow 1.x
# Python a reader knows and the mts C++ that does the same. The Python is the directive's
# body, written for the book; the C++ is cut from a program the build compiles and runs
# (chapters/NN_stage/python_beside.cc), between `// [mts:pair-NAME]` and
# `// [mts:pair-NAME-end]`, so it cannot drift from the API. docs/python_beside_test.py
# checks every pair's names against docs/tensorflow_names.md.
#
#     ```{beside} /chapters/01_session/python_beside.cc pair-feeds
#     :caption: Feed a placeholder, fetch a value
#     y = sess.run(total, feed_dict={x: 3.0})
#     ```
def _beside_directive():
    import textwrap

    from docutils import nodes
    from docutils.parsers.rst import directives
    from sphinx.directives.code import container_wrapper
    from sphinx.util.docutils import SphinxDirective

    class Beside(SphinxDirective):
        required_arguments = 2
        has_content = True
        option_spec = {"caption": directives.unchanged_required}

        def run(self):
            path, marker = self.arguments
            source = os.path.join(self.env.srcdir, path.lstrip("/"))
            self.env.note_dependency(source)
            try:
                with open(source, encoding="utf-8") as f:
                    lines = f.read().splitlines()
            except OSError as e:
                raise self.error("beside: cannot read %s: %s" % (path, e))
            starts = [i for i, line in enumerate(lines) if line.rstrip().endswith("[mts:%s]" % marker)]
            ends = [i for i, line in enumerate(lines)
                    if line.rstrip().endswith("[mts:%s-end]" % marker)]
            if len(starts) != 1 or len(ends) != 1 or ends[0] <= starts[0] + 1:
                raise self.error("beside: %s needs one `[mts:%s]` line and one `[mts:%s-end]` "
                                 "line after it" % (path, marker, marker))
            cpp = textwrap.dedent("\n".join(lines[starts[0] + 1:ends[0]])).strip("\n")
            python = "\n".join(self.content).strip("\n")
            if not python:
                raise self.error("beside: the Python side (the directive's body) is empty")

            def column(code, language, caption, side):
                literal = nodes.literal_block(code, code, language=language)
                self.set_source_info(literal)
                box = nodes.container(classes=["mts-beside-" + side])
                box += container_wrapper(self, literal, caption)
                return box

            block = nodes.container(classes=["mts-beside"])
            if "caption" in self.options:
                title = nodes.paragraph(classes=["mts-beside-title"])
                title += self.state.inline_text(self.options["caption"], self.lineno)[0]
                block += title
            # How wide a column must be for its longest line: the CSS (_static/mts.css) sets
            # the pair side by side only at a window wide enough for both columns, else
            # stacks it, so that no line is cut.
            longest = max(len(line) for line in (python + "\n" + cpp).splitlines())
            width = "short" if longest <= 44 else "medium" if longest <= 54 else "long"
            grid = nodes.container(classes=["mts-beside-grid", "mts-beside-" + width])
            grid += column(python, "python", "TF1 Python (TensorFlow 1.15)", "python")
            grid += column(cpp, "cpp", "mts C++: `%s`, from `[mts:%s]`" % (path.lstrip("/"), marker),
                           "cpp")
            block += grid
            return [block]

    return Beside


def setup(app):
    app.add_directive("beside", _beside_directive())
    app.connect("builder-inited", _load_class_names)
    app.connect("doctree-read", _link_class_names)
    app.connect("doctree-read", _break_paths_in_tables)
    return {"parallel_read_safe": True}
