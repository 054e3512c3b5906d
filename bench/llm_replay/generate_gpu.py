#!/usr/bin/env python3
"""Generate replies to recorded prompts with a small open model on a GPU (transformers, greedy as the product asks).

Reads prompts.json (written by analyze.py --pack), writes $OUT/replies.json. Each kind is bounded by its own
max_tokens; one answer is also generated with a bound of 2048 to see whether the model stops by itself.

Run (on the GPU machine): python generate_gpu.py MODEL_DIR GGUF_NAME prompts.json
"""

from __future__ import annotations

import json
import os
import sys
import time

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

BOUND = {"answer": 400, "extraction": 800, "report": 800, "map": 500, "reduce": 600, "judge": 300}
BATCH = 16
ROLES = {"human": "user", "ai": "assistant"}


def main(model_dir: str, gguf_name: str, prompts_path: str) -> None:
    started = time.time()
    tok = AutoTokenizer.from_pretrained(model_dir, gguf_file=gguf_name)
    model = AutoModelForCausalLM.from_pretrained(model_dir, gguf_file=gguf_name, dtype=torch.bfloat16).cuda().eval()
    tok.padding_side = "left"
    tok.pad_token = tok.pad_token or tok.eos_token
    out: dict = {"env": {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0)},
                 "load_s": round(time.time() - started, 2), "results": []}
    data = json.load(open(prompts_path, encoding="utf-8"))

    def generate(batch: list[list[dict]], max_new: int) -> tuple[list[dict], float]:
        texts = [tok.apply_chat_template([{"role": ROLES.get(m["role"], m["role"]), "content": m["content"]}
                                          for m in messages], tokenize=False, add_generation_prompt=True)
                 for messages in batch]
        enc = tok(texts, return_tensors="pt", padding=True, truncation=True, max_length=8192 - max_new).to("cuda")
        torch.cuda.synchronize()
        t = time.time()
        with torch.no_grad():
            ids = model.generate(**enc, max_new_tokens=max_new, do_sample=False, pad_token_id=tok.pad_token_id)
        torch.cuda.synchronize()
        replies = []
        for row in ids[:, enc["input_ids"].shape[1]:]:
            n = int((row != tok.pad_token_id).sum())
            replies.append({"reply": tok.decode(row, skip_special_tokens=True), "new_tokens": n,
                            "hit_bound": n >= max_new and not bool((row == tok.eos_token_id).any())})
        return replies, time.time() - t

    def save() -> None:
        with open(os.path.join(os.environ["OUT"], "replies.json"), "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False)

    by_kind: dict[str, list[dict]] = {}
    for prompt in data["prompts"]:
        by_kind.setdefault(prompt["kind"], []).append(prompt)
    for kind, prompts in by_kind.items():
        for i in range(0, len(prompts), BATCH):
            group = prompts[i:i + BATCH]
            replies, seconds = generate([p["messages"] for p in group], BOUND[kind])
            for prompt, reply in zip(group, replies, strict=True):
                out["results"].append({"kind": kind, "messages": prompt["messages"], **reply,
                                       "batch_s": round(seconds, 2), "batch": len(group)})
            print(kind, len(group), round(seconds, 2), flush=True)
            save()
    points = "\n\n".join(r["reply"] for r in out["results"] if r["kind"] == "map")
    reduce = [{"role": m["role"], "content": m["content"].replace("QQQ_QUESTION", data["reduce_question"])
               .replace("PPP_POINTS", points)} for m in data["reduce_template"]]
    replies, seconds = generate([reduce], BOUND["reduce"])
    out["results"].append({"kind": "reduce", "messages": reduce, **replies[0],
                           "batch_s": round(seconds, 2), "batch": 1})
    answer = by_kind["answer"][0]["messages"]
    out["single"] = []
    for bound in (BOUND["answer"], 2048):
        replies, seconds = generate([answer], bound)
        out["single"].append({"bound": bound, "s": round(seconds, 2), **replies[0]})
    save()


if __name__ == "__main__":
    main(*sys.argv[1:4])
