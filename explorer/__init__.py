"""The explorer app's own package: everything the Streamlit pages share, and nothing about privacy.

Layers: ``dpcore`` (the mathematics) ← ``explorer`` (datasets, session state,
widgets, the frame, charts, snippets) ← ``app_pages/`` (page scripts that read
widgets, call ``dpcore`` and lay out). Modules, each findable by name:

* :mod:`~explorer.dataset`, :mod:`~explorer.csv_reader`, :mod:`~explorer.columns`,
  :mod:`~explorer.export`: uploads, demo tables, column profiles, mechanism
  inputs, safe CSV downloads (no Streamlit);
* :mod:`~explorer.markup`: user text made safe for Markdown;
* :mod:`~explorer.state`: the session's state (keys named once, one writer each);
* :mod:`~explorer.widgets`, :mod:`~explorer.budget`: URL-bound widgets, the ledger's buttons;
* :mod:`~explorer.frame`: the sidebar, the navigation, the error boundary, URL notices;
* :mod:`~explorer.charts`: Plotly figures (they draw numbers, they compute none);
* :mod:`~explorer.snippets`: the downloadable Python snippets, run by the tests.
* :mod:`~explorer.training`: the Learning page's training runs, cached; its views are laid out by
  :mod:`~explorer.learning_noisy_gd`, :mod:`~explorer.learning_dp_sgd`, :mod:`~explorer.learning_fedavg`,
  with their shared pieces in :mod:`~explorer.learning_layout`.
"""
