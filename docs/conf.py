"""Sphinx configuration of the tabletop-rl documentation site.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (the ``docs``
extra). Pages are MyST Markdown; the API reference is autodoc + autosummary over the
Google-style docstrings (napoleon); the CLI reference is generated from
``tabletop_core.cli.build_parser``. ``_ext/tabletop_docs.py`` writes the generated pages
(one per game, the CLI reference, a replay) before the sources are read, and draws the
plots (``tabletop-plot``) from ``docs/figures/*.jsonl`` with matplotlib.
"""

from __future__ import annotations

import importlib.util
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_ext"))

project = "tabletop-rl"
author = "tabletop-rl contributors"
copyright = "tabletop-rl contributors, MIT licence"  # noqa: A001

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "tabletop_docs",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
# _generated holds the snippets the pages {include}; they are not pages of their own
exclude_patterns = ["_build", "_generated", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# flags (--mode) and quotes in option values ('standard') stay as typed, not typographic
smartquotes = False

# --- API reference ------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
# the exported names that are not for users, left out of each module's page
autosummary_context = {"internal_members": __import__("tabletop_docs").API_INTERNALS}
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
# The packages are imported as users import them; the trainer's optional packages (the
# `train` extra) are mocked only where they are not installed, so that `.[docs]` alone
# builds the reference.
autodoc_mock_imports = [m for m in ("torch", "matplotlib", "tqdm") if importlib.util.find_spec(m) is None]
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True
napoleon_attr_annotations = True

# Known-noisy categories, each said why:
suppress_warnings = [
    # the game packages re-export names (GAME, env, ...) that autodoc also finds in their
    # defining modules; a cross-reference to such a name has two targets by design
    "ref.python",
    # MyST: the docs pages link to repository files (../tabletop_core/..., examples/) that
    # are not documents of the site
    "myst.xref_missing",
]

# --- HTML ---------------------------------------------------------------------------------
html_theme = "furo"
html_title = "tabletop-rl"
html_static_path: list[str] = []
# the replay page written by tabletop_docs at build time (a self-contained HTML file)
html_extra_path = ["_generated/extra"]
os.makedirs(os.path.join(os.path.dirname(__file__), "_generated", "extra"), exist_ok=True)
