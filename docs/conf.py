"""Sphinx configuration for the mts book.

The book is built from a tree shaped like the repository: the source directory is the
top of the tree (so a chapter quotes any file by a path starting with `/`, such as
`/src/01_session/session.h`) and this file sits in `docs/`, passed with `-c docs`.
Only `docs/*.md` and `chapters/*/*.md` are pages. docs/make_book.sh runs Doxygen first
and tells us where its XML is through MTS_DOXYGEN_XML.
"""

import os

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


def _load_class_names(app):
    app.env.mts_class_names = _class_names()


def setup(app):
    app.connect("builder-inited", _load_class_names)
    app.connect("doctree-read", _link_class_names)
    return {"parallel_read_safe": True}
