#!/usr/bin/env python3
"""Writes a reference folder in the format `glance-cli check` reads (tests/data/tiny-a's:
golden.json + golden.safetensors + the model's files + the images), computed by the PyTorch twin
in float32 for any prompt: text and image parts in any order, several images, enable_thinking,
a second turn.

  make_golden.py MODEL_DIR SPEC.json OUT_DIR [--link]

SPEC.json is golden.json's own shape, so a golden folder's golden.json regenerates it:
  {"images": [{"file": "image.png"}, ...]       (or "image": {"file": ...}; paths relative to SPEC)
   "prompt": {"messages": [...Hugging Face messages, {"type": "image"} parts in order...],
              "enable_thinking": false},          (absent: unset)
   "decode": {"steps": 24},                       (or "tokens": [...], whose length is used)
   "turn2": {"user_text": "...", "steps": 16}}    (optional; or "tokens")
--link: the model's files (and images outside OUT_DIR) become relative symlinks instead of copies.

What is computed (the twin reproduces Hugging Face's tiny-a golden within ~2e-5, check_golden.py):
pixel values (images whose sides are multiples of 32 and that the processor does not resize;
anything else is refused: the twin has no bicubic resize), the image embeddings, the prompt
(chat_render.py's transcription of the template, checked against the folder's Hugging Face
renders first), its ids with each <|image_pad|> expanded to its image's token count, M-RoPE
positions, logits at every prompt row, the last prompt row's attention in every full-attention
layer, greedy decoding (EOS ignored) with each step's logits and attention rows, and the second
turn as Hugging Face's golden defines it (prompt + every answer token + the template's text after
the answer, then greedy). Decoding recomputes the whole sequence each step (no cache), which is
the same function Hugging Face's cached generate computes.
Not written (check reads none of them): the bf16 run, Hugging Face's internal path comparisons,
the processor's extra cases, per-layer internals and caches.
Exit codes: 0 written, 2 bad input, 77 skipped (no torch here).
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import deps  # noqa: E402

deps.require()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

import chat_render  # noqa: E402
import safetensors_io  # noqa: E402
from checkpoint import load_model  # noqa: E402
from model import mrope_positions, patchify  # noqa: E402
from text import Tokenizer  # noqa: E402

# The model folder's files a check needs; the tokenizer cases and template renders are Hugging
# Face's for this tokenizer and template, so they apply to any golden made from the same model.
MODEL_FILES = ("config.json", "model.safetensors", "generation_config.json", "preprocessor_config.json",
               "tokenizer.json", "tokenizer_config.json", "chat_template.jinja")
CASE_FILES = ("tokenizer_cases.json", "chat_template_renders.json")


def fail(msg):
    print(f"make_golden: {msg}", file=sys.stderr)
    sys.exit(2)


def read_spec(path):
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: {e}")
    base = os.path.dirname(os.path.abspath(path))
    images = spec.get("images") or ([spec["image"]] if "image" in spec else [])
    files = [os.path.join(base, im["file"]) for im in images]
    prompt = spec.get("prompt")
    if not prompt or "messages" not in prompt:
        fail(f"{path}: prompt.messages is missing")
    messages = prompt["messages"]
    n_parts = sum(1 for m in messages if isinstance(m["content"], list)
                  for p in m["content"] if p.get("type") == "image")
    if n_parts != len(files):
        fail(f"{path}: the messages hold {n_parts} image part(s), images lists {len(files)}")
    thinking = prompt.get("enable_thinking")
    if thinking is not None and not isinstance(thinking, bool):
        fail(f"{path}: prompt.enable_thinking must be true, false or absent")

    def steps(section, where):
        n = section.get("steps", len(section.get("tokens", [])))
        if not isinstance(n, int) or n < 2:
            fail(f"{path}: {where}.steps must be an integer >= 2")
        return n

    decode = steps(spec.get("decode", {}), "decode")
    turn2 = spec.get("turn2")
    if turn2 is not None:
        if not isinstance(turn2.get("user_text"), str) or not turn2["user_text"]:
            fail(f"{path}: turn2.user_text is missing")
        turn2 = {"user_text": turn2["user_text"], "steps": steps(turn2, "turn2")}
    return {"images": files, "messages": messages,
            "enable_thinking": thinking, "steps": decode, "turn2": turn2}


def load_image(path, model_dir):
    """(pixel_values, patch grid h, w) for an image the processor takes as it is."""
    try:
        img = np.array(Image.open(path).convert("RGB"))
    except OSError as e:
        fail(f"{path}: {e}")
    h, w = img.shape[:2]
    with open(os.path.join(model_dir, "preprocessor_config.json")) as f:
        pp = json.load(f)
    size = pp.get("size", {})
    lo, hi = size.get("shortest_edge", pp.get("min_pixels", 0)), size.get("longest_edge", pp.get("max_pixels", 1 << 62))
    # Qwen2-VL's smart_resize leaves an image alone when its sides are multiples of
    # patch × merge (32) and its area lies within [min_pixels, max_pixels].
    if h % 32 or w % 32 or not lo <= h * w <= hi:
        fail(f"{path}: {w}x{h} would be resized by the processor (sides must be multiples of 32, "
             f"area within [{lo}, {hi}]); the twin does not resize")
    pv, gh, gw = patchify(img)
    return pv, gh, gw


def expand(ids, pad, counts):
    out, k = [], 0
    for t in ids:
        if t == pad:
            out += [pad] * counts[k]
            k += 1
        else:
            out.append(t)
    if k != len(counts):
        raise ValueError(f"{k} image placeholders for {len(counts)} images")
    return out


class Twin:
    """The model with its images' embeddings: logits and attention rows for a token sequence."""

    def __init__(self, model, config, embeds, grids):
        self.model, self.config, self.embeds, self.grids = model, config, embeds, grids
        self.pad = config["image_token_id"]
        self.full = [i for i, k in enumerate(config["text_config"]["layer_types"]) if k == "full_attention"]

    def forward(self, ids):
        pos, delta = mrope_positions(ids, self.pad, self.grids)
        traces = [dict() for _ in self.model.model.language_model.layers]
        hidden, _, _ = self.model(torch.tensor([ids]), pos[None], self.embeds, traces)
        attn = {li: traces[li]["attn"][0, :, -1] for li in self.full}  # [heads, len(ids)]
        return self.model.head(hidden)[0], attn, pos, delta

    def greedy(self, ids, steps):
        """Greedy decoding, EOS ignored: (tokens, logits [steps, V], {layer: [steps, heads, L+steps-1]})."""
        seq, toks, rows = list(ids), [], []
        L = len(ids)
        attn = {li: torch.zeros(steps, self.config["text_config"]["num_attention_heads"], L + steps - 1) for li in self.full}
        for s in range(steps):
            logits, a, _, _ = self.forward(seq)
            rows.append(logits[-1])
            for li in self.full:
                attn[li][s, :, :L + s] = a[li]
            toks.append(int(logits[-1].argmax()))
            seq.append(toks[-1])
        return toks, torch.stack(rows), attn


def place_files(model_dir, out, link):
    os.makedirs(out, exist_ok=True)
    for name in MODEL_FILES + CASE_FILES:
        src = os.path.join(model_dir, name)
        dst = os.path.join(out, name)
        if not os.path.exists(src):
            if name in MODEL_FILES:
                fail(f"{src} is missing")
            continue
        if os.path.abspath(src) == os.path.abspath(dst):
            continue
        if os.path.lexists(dst):
            os.remove(dst)
        if link:
            os.symlink(os.path.relpath(os.path.abspath(src), os.path.abspath(out)), dst)
        else:
            shutil.copyfile(src, dst)


def make(model_dir, spec, out, link):
    torch.set_num_threads(min(2, torch.get_num_threads()))
    chat_render.require_template(model_dir)
    renders = os.path.join(model_dir, "chat_template_renders.json")
    if os.path.exists(renders):
        print(f"chat_render.py: {chat_render.check_renders(renders)} Hugging Face renders reproduced")
    model, config = load_model(model_dir)
    model.eval()
    tok = Tokenizer(os.path.join(model_dir, "tokenizer.json"))
    pad = config["image_token_id"]

    # Each image is placed in OUT under its own file name; one file may be listed twice.
    names, sources = [], {}
    for f in spec["images"]:
        name = os.path.basename(f)
        if sources.setdefault(name, os.path.abspath(f)) != os.path.abspath(f):
            fail(f"two different images are named {name}: {sources[name]} and {os.path.abspath(f)}")
        names.append(name)
    pvs, grids = [], []
    for f in spec["images"]:
        pv, gh, gw = load_image(f, model_dir)
        pvs.append(pv)
        grids.append((gh, gw))
    merged = [(gh // 2, gw // 2) for gh, gw in grids]
    counts = [mh * mw for mh, mw in merged]

    # Hugging Face's messages: an image part is {"type": "image"} (its file is in "images").
    messages = [{**m, "content": [{k: v for k, v in p.items() if k != "file"} for p in m["content"]]}
                if isinstance(m["content"], list) else m for m in spec["messages"]]
    thinking = spec["enable_thinking"]
    try:
        text = chat_render.render(messages, True, thinking)
    except ValueError as e:
        fail(f"prompt: {e}")
    ids = expand(tok.encode(text), pad, counts)

    with torch.no_grad():
        embeds = [model.model.visual(pv[None], gh, gw)[0] for pv, (gh, gw) in zip(pvs, grids)]
        all_embeds = torch.cat(embeds)[None] if embeds else None
        twin = Twin(model, config, all_embeds, merged)
        logits, attn, pos, delta = twin.forward(ids)
        toks, dlogits, dattn = twin.greedy(ids, spec["steps"])
        # The answer as the next turn's history holds it: decoded without the special tokens, as
        # Hugging Face's skip_special_tokens=True (and Glance's Session) leave it.
        answer = tok.decode(toks, skip_special=True)
        t = {"pixel_values": torch.cat(pvs) if pvs else torch.zeros(0, 1536),
             "image_grid_thw": torch.tensor([[1, gh, gw] for gh, gw in grids]).reshape(-1, 3),
             "vision.image_embeds": all_embeds[0] if embeds else torch.zeros(0, config["text_config"]["hidden_size"]),
             "prompt.input_ids": torch.tensor(ids),
             "prompt.mm_token_type_ids": (torch.tensor(ids) == pad).long(),
             "prompt.position_ids": pos, "prompt.rope_deltas": torch.tensor([delta]),
             "prefill.logits": logits, "decode.tokens": torch.tensor(toks), "decode.logits": dlogits}
        for li in twin.full:
            t[f"prefill.attn_last_pos.layer{li}"] = attn[li]
            t[f"decode.attn.layer{li}"] = dattn[li]
        meta_turn2 = None
        if spec["turn2"]:
            user2 = spec["turn2"]["user_text"]
            # The template's text after the first answer, found by rendering with a placeholder
            # answer (as Hugging Face's golden did); the cached continuation appends it.
            marker = "\x00ANSWER\x00"
            conv = messages + [{"role": "assistant", "content": marker}, {"role": "user", "content": user2}]
            suffix_text = chat_render.render(conv, True, thinking).split(marker, 1)[1]
            suffix_ids = tok.encode(suffix_text)
            t2_ids = ids + toks + suffix_ids
            toks2, logits2, _ = twin.greedy(t2_ids, spec["turn2"]["steps"])
            pos2, _ = mrope_positions(t2_ids, pad, merged)
            try:
                render2 = chat_render.render(messages + [{"role": "assistant", "content": answer},
                                                         {"role": "user", "content": user2}], True, thinking)
                render2_ids = expand(tok.encode(render2), pad, counts)
            except ValueError as e:
                fail(f"turn 2: the decoded answer {answer!r} cannot be rendered and tokenized here ({e}); "
                     "choose another prompt")
            t.update({"turn2.input_ids": torch.tensor(t2_ids), "turn2.suffix_ids": torch.tensor(suffix_ids),
                      "turn2.tokens": torch.tensor(toks2), "turn2.logits": logits2,
                      "turn2.scratch_next_logits": logits2[0], "turn2.position_ids": pos2})
            meta_turn2 = {"user_text": user2, "suffix_text": suffix_text, "suffix_ids": suffix_ids,
                          "input_ids": t2_ids, "length": len(t2_ids), "tokens": toks2, "text": tok.decode(toks2),
                          "template_render_of_two_turn_conversation": render2, "template_render_ids": render2_ids,
                          "note": "turn2.logits: greedy over turn2.input_ids recomputed from scratch each step "
                                  "(Hugging Face's golden continues its cache; the function is the same)"}

    steps_neg = [float((dlogits[k] - dlogits[k + 1]).abs().max()) for k in range(len(toks) - 1)]
    place_files(model_dir, out, link)
    for name, f in sources.items():
        dst = os.path.join(out, name)
        if os.path.abspath(f) != os.path.abspath(dst):
            if os.path.lexists(dst):
                os.remove(dst)
            if link:
                os.symlink(os.path.relpath(os.path.abspath(f), os.path.abspath(out)), dst)
            else:
                shutil.copyfile(f, dst)
    safetensors_io.save(os.path.join(out, "golden.safetensors"), t,
                        {k: ("F32" if v.is_floating_point() else "I64") for k, v in t.items()})
    meta = {
        "name": os.path.basename(os.path.abspath(out)),
        "producer": "tools/twin/make_golden.py: the PyTorch twin (tools/twin/model.py), float32 CPU, torch "
                    + torch.__version__ + "; NOT Hugging Face transformers (see README.md)",
        "images": [{"file": n, "size_wh": [gw * 16, gh * 16], "grid_thw": [1, gh, gw]} for n, (gh, gw) in zip(names, grids)],
        "prompt": {"messages": messages, **({} if thinking is None else {"enable_thinking": thinking}),
                   "chat_template_text": text, "input_ids": ids, "length": len(ids),
                   "n_image_tokens": counts, "rope_deltas": delta},
        "full_attention_layers": twin.full,
        "decode": {"tokens": toks, "text": tok.decode(toks), "text_skip_special": answer,
                   "note": "greedy, EOS ignored; step s logits predict token s; step s attention covers L+s keys (padded with 0)"},
        "negative_control": {"max_abs_diff_step_k_vs_k+1": steps_neg, "min_over_k": min(steps_neg)},
        "not_computed": ["bf16_run_vs_f32_golden", "prefill layer internals and caches", "vision intermediates",
                         "extra.real_processor (resize cases)"],
        "tensors": {k: {"shape": list(v.shape), "dtype": "float32" if v.is_floating_point() else "int64"} for k, v in t.items()},
    }
    if meta_turn2:
        meta["turn2"] = meta_turn2
    with open(os.path.join(out, "golden.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{out}: {len(ids)} prompt ids, {len(spec['images'])} image(s) {counts} tokens; answer {answer!r}")
    if meta_turn2:
        print(f"  turn 2 answer {meta_turn2['text']!r}")
    print(f"  negative control: step k vs k+1 min max|d| {min(steps_neg):.3f}")


def main(argv):
    args = [a for a in argv if a != "--link"]
    if len(args) != 3:
        print(__doc__.split("\n\n")[1])
        return 2
    model_dir, spec_path, out = args
    spec = read_spec(spec_path)  # before anything is written: the spec may live in OUT
    make(model_dir, spec, out, "--link" in argv)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
