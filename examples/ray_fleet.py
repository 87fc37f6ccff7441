"""Recipe: many files over many machines with Ray actors, one actor per model server.

Each actor holds an ``--engine http`` engine pinned to its own server (vLLM on a GPU, a
``mineru-tui serve``, a llama-server...) and converts whole files with ``convert()``; a
``ray.util.ActorPool`` hands the files out as actors free up. Start the servers first, then:

    pip install 'ray>=2.40'          # not a dependency of mineru-tui
    python examples/ray_fleet.py http://gpu1:30000 http://gpu2:30000 -- docs/*.pdf

On a cluster, run it on the head node after ``ray start`` on every machine (``ray.init()``
joins the running cluster); an actor may run anywhere, its server URL must be reachable from
there. Files of one failed server are retried by the http engine on the same actor; use
``--server-url A,B`` per actor instead of one URL for failover inside an actor too.
"""

from __future__ import annotations

import sys


def make_actor_class():
    import ray

    @ray.remote(num_cpus=0.5)  # the work is waiting on the server, not local compute
    class Reader:
        def __init__(self, server_url: str):
            from mineru_tui.engines import EngineOptions, LazyEngine

            self.engine = LazyEngine(EngineOptions(engine="http", server_urls=(server_url,)))
            self.server_url = server_url

        def read(self, path: str) -> dict:
            from mineru_tui.convert import ConvertOptions, convert
            from mineru_tui.errors import ConvertError
            from mineru_tui.document import to_markdown

            try:
                doc = convert(path, ConvertOptions(engine=self.engine))
            except ConvertError as e:
                return {"file": path, "error": e.reason, "server": self.server_url}
            return {"file": path, "markdown": to_markdown(doc), "server": self.server_url}

    return Reader


def read_files(paths: list[str], server_urls: list[str]) -> list[dict]:
    """Convert ``paths`` with one actor per server; results in input order."""
    import ray
    from ray.util import ActorPool

    if not ray.is_initialized():
        ray.init()
    reader = make_actor_class()
    pool = ActorPool([reader.remote(url) for url in server_urls])
    return list(pool.map(lambda actor, path: actor.read.remote(path), paths))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0)
    if "--" not in args:
        sys.exit("usage: python examples/ray_fleet.py URL [URL...] -- FILE [FILE...]")
    cut = args.index("--")
    for result in read_files(args[cut + 1:], args[:cut]):
        print(f"{result['file']} ({result['server']}): "
              f"{result.get('error') or str(len(result['markdown'])) + ' chars of Markdown'}")
