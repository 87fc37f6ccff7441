"""The MinerU2.5 (Qwen2-VL) host shared by every local engine: what runs around the forward passes.

* :mod:`.checkpoint` / :mod:`.config` — finding and reading a checkpoint (safetensors, configs);
* :mod:`.tokenizer` / :mod:`.preprocess` — MinerU's prompt and the image into patches;
* :mod:`.rope` — M-RoPE position ids and the rotary tables;
* :mod:`.sampling` — MinerU's decoding knobs (n-gram ban, penalties) over the logits;
* :mod:`.kv_cache` — what the loop asks of a text forward pass and its KV cache;
* :mod:`.generate` — the generation loop (prefill, decode, continuous batching).

None of it does a forward pass: numpy (``engines/numpy/``), OpenVINO and Core ML plug theirs in.
"""
