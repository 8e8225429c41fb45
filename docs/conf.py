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
include_patterns = ["docs/*.md", "chapters/*/*.md"]
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
html_show_sourcelink = False
