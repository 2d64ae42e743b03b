"""Writes the example scenarios of docs/msample.md (run from anywhere; numpy needed).

  top_p.json      two requests at vocab 32 (one owns two rows), float32 logits: top-k then top-p,
                  and a windowed penalty with a min-tokens floor
  bfloat16.json   one greedy and one min-p request over bfloat16 logits (uint16 in the .npy), a
                  prompt that the presence penalty counts, and a 64-bit seed from derive_seed
"""
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main():
    rng = np.random.default_rng(2026)
    x = (rng.normal(0, 2, (3, 32))).astype(np.float32)
    np.save(HERE / "top_p.npy", x)
    doc = {
        "spec": {"resource_key": "LLM_SAMPLER", "nodes": ["thinker"], "vocab_size": 32,
                 "max_repetition_window": 8, "min_tokens_stop_ids": [31]},
        "requests": [
            {"rid": 7, "config": {"temperature": 0.7, "top_k": 8, "top_p": 0.9, "seed": 42},
             "prompt": [1, 2, 3], "generated": [5, 9]},
            {"rid": 8, "config": {"temperature": 1.0, "repetition_penalty": 1.3, "repetition_window": 8,
                                  "min_tokens": 4, "seed": 43},
             "prompt": [], "generated": [4, 4, 6]},
        ],
        "step": {"apply_penalty": True, "apply_filters": True},
        "rows": [7, 8, 7],
        "logits": "top_p.npy",
    }
    (HERE / "top_p.json").write_text(json.dumps(doc, indent=2) + "\n")

    y = (rng.normal(0, 3, (2, 48))).astype(np.float32)
    np.save(HERE / "bfloat16.npy", (y.view(np.uint32) >> 16).astype(np.uint16))
    doc = {
        "spec": {"resource_key": "LLM_SAMPLER", "nodes": ["talker"], "vocab_size": 40, "enable_min_p": True},
        "requests": [
            {"rid": 1, "config": {"temperature": 0.0, "repetition_penalty": 1.5}, "prompt": [3, 17],
             "generated": []},
            {"rid": 2, "config": {"temperature": 0.9, "min_p": 0.1, "repetition_penalty": 1.2,
                                  "seed": 6373920217672001033},
             "prompt": [0, 1, 2], "generated": [11]},
        ],
        "rows": [1, 2],
        "logits": "bfloat16.npy",
        "logits_dtype": "bfloat16",
    }
    (HERE / "bfloat16.json").write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
