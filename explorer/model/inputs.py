"""A model's inputs from tokenizer encodings: what the runtimes run and the quantiser calibrates
on, built in one place so that both see the same arrays."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def feed(encodings: list, inputs: Sequence[str], pad_id: int) -> dict[str, np.ndarray]:
    """The model's `inputs` for a batch of tokenizer encodings, padded to the longest."""
    width = max(len(e.ids) for e in encodings)
    arrays = {
        "input_ids": np.full((len(encodings), width), pad_id, dtype=np.int64),
        "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
        "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64),
    }
    for row, encoding in enumerate(encodings):
        size = len(encoding.ids)
        arrays["input_ids"][row, :size] = encoding.ids
        arrays["attention_mask"][row, :size] = encoding.attention_mask
        arrays["token_type_ids"][row, :size] = encoding.type_ids
    return {name: arrays[name] for name in inputs}
