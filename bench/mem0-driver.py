"""
The mem0 side of `npm run bench mem0`: one mem0 Memory in this process (its local on-disk Qdrant,
its SQLite history, telemetry off), embedding through the OpenAI-compatible endpoint named by
HYPHAE_BENCH_EMBED_URL (a `hyphae worker`), driven one call at a time by JSON lines on stdin:
  {"op": "add", "text": "..."}                 -> {"ms": float}
  {"op": "search", "query": "...", "k": 5}     -> {"ms": float, "memories": ["...", ...]}
  {"op": "cpu"}                                -> {"cpu_ms": float}   (this process's CPU time)
Each call is timed here, around the library call alone, so no transport is charged to mem0.
"""
import json
import os
import sys
import time

from mem0 import Memory

USER = "bench"


def memory() -> Memory:
    root = os.environ["MEM0_DIR"]
    dimension = int(os.environ["HYPHAE_BENCH_EMBED_DIMENSION"])
    return Memory.from_config(
        {
            "embedder": {
                "provider": "openai",
                "config": {
                    "model": os.environ["HYPHAE_BENCH_EMBED_MODEL"],
                    "openai_base_url": os.environ["HYPHAE_BENCH_EMBED_URL"],
                    "api_key": "loopback",
                },
            },
            "vector_store": {
                "provider": "qdrant",
                "config": {
                    "collection_name": "bench",
                    "embedding_model_dims": dimension,
                    "path": os.path.join(root, "qdrant"),
                    "on_disk": True,
                },
            },
            # Built at start-up, never called: add(..., infer=False) stores the text as given.
            "llm": {"provider": "openai", "config": {"api_key": "loopback", "openai_base_url": os.environ["HYPHAE_BENCH_EMBED_URL"]}},
            "history_db_path": os.path.join(root, "history.db"),
        }
    )


def main() -> None:
    store = memory()
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        if op == "add":
            started = time.perf_counter()
            store.add(request["text"], user_id=USER, infer=False)
            reply = {"ms": (time.perf_counter() - started) * 1000}
        elif op == "search":
            started = time.perf_counter()
            found = store.search(request["query"], filters={"user_id": USER}, top_k=request["k"])
            reply = {"ms": (time.perf_counter() - started) * 1000, "memories": [r["memory"] for r in found["results"]]}
        elif op == "cpu":
            reply = {"cpu_ms": time.process_time() * 1000}
        else:
            reply = {"error": f"unknown op {op}"}
        out.write(json.dumps(reply) + "\n")
        out.flush()


main()
