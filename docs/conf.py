# The manual (Sphinx): the Markdown pages of docs/ as they are (MyST), a C++ reference from the
# public headers (Doxygen's XML through Breathe) and a Python reference from the module's
# docstrings (autodoc). Built by the CMake target `docs` (UNISON_ENABLE_DOCS), which runs Doxygen
# first and passes its XML folder in UNISON_DOXYGEN_XML, and the built module's folder on
# PYTHONPATH.
import os

project = "Unison"
author = "the Unison developers"
extensions = ["myst_parser", "breathe", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Doxyfile.in", "CMakeLists.txt"]
html_theme = "sphinx_rtd_theme"
myst_heading_anchors = 3
breathe_projects = {"unison": os.environ.get("UNISON_DOXYGEN_XML", "xml")}
breathe_default_project = "unison"
breathe_default_members = ("members",)
autodoc_member_order = "bysource"
# The pages link the repository's sources (../include/..., ../benchmarks/...), which the site does
# not hold: scripts/check-links.py checks those links resolve in the tree.
suppress_warnings = ["myst.xref_missing", "ref.myst"]
