"""What the tests and the benchmarks both build inputs and doubles from, kept in one place.

* ``scripted_engine``: an engine that replays fixed answers (the page pipeline without a model);
* ``pdf_fixtures``: PDFs written byte by byte, and the corpus PDFs joined to any page count;
* ``crafted``: small hostile Office, ODF, RTF and web files (bounded-work inputs);
* ``mineru4_outline``: what a Markdown text carries, as comparable items;
* ``watch_doubles``: a scripted page reader for the watcher's reader processes
  (``converter="testkit.watch_doubles:convert"``, the repository root on ``PYTHONPATH``).

The arrows run one way (``tests/test_architecture.py`` checks them): ``tests/`` and
``bench/`` import ``testkit``; of the repository's code ``testkit`` imports only the package;
``bench/`` never imports ``tests/``; the package imports none of them. Not installed with the package: the tests find
it through pytest's ``pythonpath``, a bench script puts the repository root on ``sys.path``.
"""
