#!/usr/bin/env python3
"""Generate replies to recorded prompts with a small open model on a GPU (transformers, greedy as the product asks).

Reads prompts.json (written by analyze.py --pack), writes $OUT/replies.json after every batch (a run cut short still
brings back what it made). Each prompt is bounded by the ``max_tokens`` the product sent with it (its call kind's
bound, ``core.llm.CALL_TOKENS``). Prompts are generated in groups, longest bound per group: a group runs to its
longest bound (or until every row stopped) and each row is then cut at its own bound, which with greedy decoding is
the reply a call with that bound gets. The tier prompts (statement, triple, topic) go first, then the other kinds,
then the reduce step chained on the map replies.

Run (on the GPU machine): python generate_gpu.py MODEL_DIR GGUF_NAME prompts.json [MAX_BATCH]
"""

from __future__ import annotations

import json
import os
import sys
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

# core.llm.CALL_TOKENS, for a prompt recorded without max_tokens (the reduce step, built here)
BOUND = {"answer": 1024, "extraction": 1500, "report": 1500, "map": 800, "reduce": 1024, "judge": 400,
         "topic": 60, "statement": 600, "triple": 600}
GROUPS = (("topic",), ("statement", "triple"), ("answer", "extraction", "report", "map", "judge"))
ROLES = {"human": "user", "ai": "assistant"}


def main(model_dir: str, gguf_name: str, prompts_path: str, max_batch: int = 64) -> None:
    started = time.time()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tok = AutoTokenizer.from_pretrained(model_dir, gguf_file=gguf_name)
    model = AutoModelForCausalLM.from_pretrained(model_dir, gguf_file=gguf_name, dtype=torch.bfloat16).to(device)
    model.eval()
    tok.padding_side = "left"
    tok.pad_token = tok.pad_token or tok.eos_token
    stops = {i for i in (tok.eos_token_id, tok.pad_token_id) if i is not None}
    out: dict = {"env": {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0) if device == "cuda"
                         else "cpu"}, "load_s": round(time.time() - started, 2), "results": []}
    data = json.load(open(prompts_path, encoding="utf-8"))

    def sync() -> None:
        if device == "cuda":
            torch.cuda.synchronize()

    def generate(batch: list[list[dict]], bounds: list[int]) -> tuple[list[dict], float]:
        texts = [tok.apply_chat_template([{"role": ROLES.get(m["role"], m["role"]), "content": m["content"]}
                                          for m in messages], tokenize=False, add_generation_prompt=True)
                 for messages in batch]
        longest = max(bounds)
        enc = tok(texts, return_tensors="pt", padding=True, truncation=True, max_length=8192 - longest).to(device)
        sync()
        t = time.time()
        with torch.no_grad():
            ids = model.generate(**enc, max_new_tokens=longest, do_sample=False, pad_token_id=tok.pad_token_id)
        sync()
        replies = []
        for row, bound in zip(ids[:, enc["input_ids"].shape[1]:].tolist(), bounds, strict=True):
            cut = row[:bound]
            stop = next((i for i, t in enumerate(cut) if t in stops), None)
            n = stop if stop is not None else len(cut)
            replies.append({"reply": tok.decode(cut[:n], skip_special_tokens=True), "new_tokens": n,
                            "bound": bound, "hit_bound": stop is None and n >= bound})
        return replies, time.time() - t

    def save() -> None:
        with open(os.path.join(os.environ.get("OUT", "."), "replies.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False)

    def bound_of(prompt: dict) -> int:
        return int(prompt.get("max_tokens") or BOUND[prompt["kind"]])

    for kinds in GROUPS:
        prompts = sorted((p for p in data["prompts"] if p["kind"] in kinds),
                         key=lambda p: (bound_of(p), len(json.dumps(p["messages"]))))
        for i in range(0, len(prompts), max_batch):
            group = prompts[i:i + max_batch]
            replies, seconds = generate([p["messages"] for p in group], [bound_of(p) for p in group])
            for prompt, reply in zip(group, replies, strict=True):
                out["results"].append({"kind": prompt["kind"], "messages": prompt["messages"], **reply,
                                       "batch_s": round(seconds, 2), "batch": len(group)})
            print(kinds, len(group), round(seconds, 2), flush=True)
            save()
    maps = [r["reply"] for r in out["results"] if r["kind"] == "map"]
    if maps and data.get("reduce_template"):
        points = "\n\n".join(maps)
        reduce = [{"role": m["role"], "content": m["content"].replace("QQQ_QUESTION", data["reduce_question"])
                   .replace("PPP_POINTS", points)} for m in data["reduce_template"]]
        replies, seconds = generate([reduce], [BOUND["reduce"]])
        out["results"].append({"kind": "reduce", "messages": reduce, **replies[0], "batch_s": round(seconds, 2),
                               "batch": 1})
        print("reduce", round(seconds, 2), flush=True)
    out["total_s"] = round(time.time() - started, 2)
    save()


if __name__ == "__main__":
    main(*sys.argv[1:4], *(int(a) for a in sys.argv[4:5]))
