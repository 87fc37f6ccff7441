"""Pages batched across the document: the next pages' layout requests join the current page's
stream, so their decodes share the engine's rows instead of running alone at batch 1.

Only for an engine that refills its batch as rows end (``continuous_batching``): a page's
blocks go to it in one ``stream`` call, and :class:`CrossPage` appends to that call the layout
requests of up to ``depth`` pages already prepared (:func:`ahead` renders them before the page
is read: at most ``depth`` page images are held). Their events are kept apart, and when the
page reader asks for such a page's layout, the kept answer and its events are given back as
if the call had run then. Pages still finish and show in order, and what the reader sees of
each call — answers, tokens, the order of events — is what reading pages one by one gives;
only the timings differ: a stage that ran for several rows at once (a vision call, a prefill)
counts its seconds and tokens once — on the current page's rows when it had some, else on the
first kept layout in it, given back with that layout — so the pages' stage seconds add up to
the engine's.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

from mineru_tui.engines.events import Done, SequenceDone, StageEvent, Timing, TokenEvent

DEPTH = 4  # pages whose layout may run ahead


def applies(engine, settings) -> bool:
    """Whether pages may be batched across: the model reads them two-stage. (Whether the
    engine refills its rows is asked at its first call: asking opens a lazy engine.)"""
    return engine is not None and settings.mode != "text" and settings.effort != "low"


class CrossPage:
    """``engine`` with the next pages' layout requests joining each stream (module docstring).
    Pages are prepared ahead only once the engine says it refills its rows."""

    def __init__(self, engine, settings, depth: int = DEPTH):
        self._engine = engine
        self._settings = settings
        self.depth = depth
        self._enabled: bool | None = None  # the engine refills its rows (asked at its first call)
        self._queue: deque = deque()  # pages prepared ahead, in order
        self._source: Iterator | None = None  # where the pages come from (see ahead())
        self.current = None  # the page being read (a PageInput)
        self.upcoming: list = []  # the prepared pages after the current one (PageInputs)
        # a layout request carries a resized copy of its page's image: pages are known by
        # their own image (id(PageInput.image)), the current page's layout call by `current`
        self._kept: dict[int, tuple[list, object]] = {}  # page -> (events, result)
        self._asked: set[int] = set()  # pages whose layout was sent ahead

    def __getattr__(self, name):  # name, model_id, max_batch...: the engine's
        return getattr(self._engine, name)

    @property
    def continuous_batching(self) -> bool:
        return bool(getattr(self._engine, "continuous_batching", False))

    def _prepare(self) -> None:
        """Take pages from the source until ``depth`` wait after the current one."""
        while self._source is not None and len(self._queue) < self.depth:
            try:
                self._queue.append(next(self._source))
            except StopIteration:
                self._source = None
        self.upcoming = [x for x in self._queue if getattr(x, "image", None) is not None
                         and not getattr(x, "blank", False) and getattr(x, "record", None) is None]

    def _layout_of(self, request) -> bool:
        from mineru_tui.reader import protocol

        return request.prompt == protocol.layout_request(request.image, None).prompt

    def stream(self, requests, *, cancel=None) -> Iterator:
        page = id(getattr(self.current, "image", None))
        if len(requests) == 1 and page in self._kept and self._layout_of(requests[0]):
            yield from self._replay(page)
            return
        from mineru_tui.reader import protocol

        if self._enabled is None:
            self._enabled = self.continuous_batching
        extra, pages = [], []
        if self._enabled:
            self._prepare()
        for item in self.upcoming[:self.depth] if self._enabled else ():
            key = id(item.image)
            if key not in self._asked:
                self._asked.add(key)
                extra.append(protocol.layout_request(item.image, self._settings.max_new_tokens))
                pages.append(key)
        n = len(requests)
        held: dict[int, list] = {n + j: [] for j in range(len(extra))}
        finished: set[int] = set()
        for ev in self._engine.stream(list(requests) + extra, cancel=cancel):
            if isinstance(ev, TokenEvent) and ev.seq_index >= n:
                held[ev.seq_index].append(TokenEvent(0, ev.token_id, ev.text_delta, ev.n_generated, ev.elapsed))
            elif isinstance(ev, SequenceDone) and ev.seq_index >= n:
                self._kept[pages[ev.seq_index - n]] = (held[ev.seq_index], ev.result)
                finished.add(ev.seq_index)
            elif isinstance(ev, StageEvent) and ev.seqs and any(j >= n for j in ev.seqs):
                # a stage of several rows (one vision call, one prefill) counts its seconds and
                # tokens once: on this page's rows if it has some, else on the first kept layout
                mine = tuple(j for j in ev.seqs if j < n)
                counted = bool(mine)
                for j in ev.seqs:
                    if j >= n:
                        cost = (0.0, 0) if counted else (ev.seconds, ev.tokens)
                        counted = True
                        held[j].append(StageEvent(ev.stage, ev.done, ev.elapsed, *cost, (0,)))
                if mine:
                    yield StageEvent(ev.stage, ev.done, ev.elapsed, ev.seconds, ev.tokens, mine)
            elif isinstance(ev, StageEvent) and not ev.seqs:  # a stage of every row
                for kept in held.values():  # each kept layout had it too (its seconds: here)
                    kept.append(StageEvent(ev.stage, ev.done, ev.elapsed, 0.0, 0))
                yield ev
            elif isinstance(ev, Done):
                for j, result in enumerate(ev.results[n:n + len(extra)]):
                    if n + j not in finished:
                        self._kept[pages[j]] = (held[n + j], result)
                yield Done(list(ev.results[:n]), ev.timings)
            else:
                yield ev

    def _replay(self, key: int) -> Iterator:
        events, result = self._kept.pop(key)
        self._asked.discard(key)
        yield from events
        yield SequenceDone(0, result)
        yield Done([result], Timing())

    def close(self) -> None:
        self._engine.close()


def ahead(items: Iterable, cross: CrossPage) -> Iterator:
    """``items`` (the page inputs) in order, through ``cross``: once its engine refills its
    rows, up to ``depth`` pages after the current one are prepared before it is read, and
    ``cross.upcoming`` lists those whose layout the model will be asked for."""
    cross._source = iter(items)
    while True:
        if cross._enabled:
            cross._prepare()
        if cross._queue:
            item = cross._queue.popleft()
        elif cross._source is not None:
            try:
                item = next(cross._source)
            except StopIteration:
                return
        else:
            return
        cross.current = item
        if cross._enabled:
            cross._prepare()
        else:
            cross.upcoming = []
        yield item
