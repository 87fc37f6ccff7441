"""Watching a folder: every document that lands in it is read once it is complete.

Nothing here imports Textual, so ``mineru-tui watch --plain`` runs without it:

* :mod:`.ignore` — which names are never read (temporary, hidden, lock files, the output folder);
* :mod:`.settle` — when a file is complete (quiet period, size and mtime stable, it opens);
* :mod:`.observer` — the watchdog observer, with polling for network folders and inotify limits;
* :mod:`.manifest` — what was read, keyed by content hash, so a restart resumes;
* :mod:`.lanes` / :mod:`.worker` — reader processes (one for Office files, one for pages);
* :mod:`.service` — ties them together and reports everything as events (:mod:`.events`);
* :mod:`.plain` — the ``--plain`` runner: one line per event on stderr.
"""
