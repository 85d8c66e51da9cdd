#!/usr/bin/env python3
"""Trains the demo model on the shapes world: captions and multi-turn Q&A rendered through the
chat template (the token ids the C++ engine feeds), plus the MTP layer predicting one token
further. Deterministic for a given --seed (the data of step s is a function of s), resumable
from the checkpoint it writes every --save-minutes.

  /usr/bin/python3 tools/twin/train.py --run build/twin-run --steps 3000
  /usr/bin/python3 tools/twin/train.py --run build/twin-run --export resources/demo-model
"""
import argparse
import json
import math
import os
import random
import shutil
import sys
import time

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shapes_world as world  # noqa: E402
from checkpoint import save_model  # noqa: E402
from demo_config import TINY_A, demo_config  # noqa: E402
from model import Qwen35, mrope_positions, patchify  # noqa: E402
from text import Tokenizer, encode_conversation  # noqa: E402

GRID = (7, 7)  # 224x224 -> 14x14 patches -> 7x7 image tokens
N_IMG = GRID[0] * GRID[1]


def init_weights(model, seed):
    g = torch.Generator().manual_seed(seed)
    for name, p in model.named_parameters():
        with torch.no_grad():
            if name.endswith("A_log"):
                p.copy_(torch.empty_like(p).uniform_(1, 16, generator=g).log())
            elif name.endswith("dt_bias"):
                p.fill_(1.0)
            elif name.endswith("linear_attn.norm.weight"):
                p.fill_(1.0)
            elif "norm" in name and name.endswith("weight"):
                # LayerNorms (vision) use w directly; Qwen RMSNorms use 1 + w.
                p.fill_(1.0 if ".visual." in name else 0.0)
            elif name.endswith("bias"):
                p.zero_()
            else:
                p.normal_(0.0, 0.02, generator=g)


def make_batch(tok, split, indices, seed):
    """-> dict of tensors for the scenes `indices` of `split` (conversation rng from seed)."""
    pix, seqs, masks, labels = [], [], [], []
    for i in indices:
        sc = world.scene(split, i)
        shape, colour, size, img = world.token_labels(sc)
        labels.append(torch.from_numpy(__import__("numpy").stack([shape, colour, size])))
        pv, _, _ = patchify(img)
        pix.append(pv)
        turns = world.conversation(sc, random.Random(f"{seed}:{split}:{i}"))
        ids, mask = encode_conversation(tok, turns, N_IMG)
        seqs.append(ids)
        masks.append(mask)
    T = max(len(s) for s in seqs)
    pad = tok.special["<|endoftext|>"]
    ids = torch.full((len(seqs), T), pad, dtype=torch.long)
    tgt = torch.zeros((len(seqs), T), dtype=torch.bool)
    pos = torch.zeros((len(seqs), 3, T), dtype=torch.long)
    for b, (s, m) in enumerate(zip(seqs, masks)):
        ids[b, :len(s)] = torch.tensor(s)
        tgt[b, :len(s)] = torch.tensor(m)
        p, _ = mrope_positions(s + [pad] * (T - len(s)), tok.special["<|image_pad|>"], [GRID])
        pos[b] = p
    return dict(pixels=torch.stack(pix), ids=ids, target=tgt, positions=pos, labels=torch.stack(labels))


class AuxProbe(torch.nn.Module):
    """Training-only linear probes on the image tokens (shape / colour / size of what covers each
    token): a dense signal that teaches the small vision tower to see faster. Not shipped."""

    def __init__(self, dim):
        super().__init__()
        self.shape = torch.nn.Linear(dim, len(world.SHAPES) + 1)
        self.colour = torch.nn.Linear(dim, len(world.COLOURS))
        self.size = torch.nn.Linear(dim, len(world.SIZES) + 1)

    def forward(self, img, labels):
        return sum(F.cross_entropy(head(img).flatten(0, 1), labels[:, k].flatten())
                   for k, head in enumerate((self.shape, self.colour, self.size)))


def losses(model, probe, batch):
    img = model.model.visual(batch["pixels"], 14, 14)
    aux = probe(img, batch["labels"])
    hidden, _, _ = model(batch["ids"], batch["positions"], img)
    ids, tgt = batch["ids"], batch["target"]
    # Main head: position t predicts ids[t+1] where ids[t+1] is part of an answer.
    sel = tgt[:, 1:]
    logits = model.head(hidden[:, :-1][sel])
    main = F.cross_entropy(logits, ids[:, 1:][sel])
    acc = (logits.argmax(-1) == ids[:, 1:][sel]).float().mean()
    # MTP: row t (hidden t, token t+1) predicts ids[t+2].
    mh = model.mtp_hidden(ids, hidden, batch["positions"])
    sel2 = tgt[:, 2:]
    mlog = model.head(mh[:, :-1][sel2])
    mtp = F.cross_entropy(mlog, ids[:, 2:][sel2])
    macc = (mlog.argmax(-1) == ids[:, 2:][sel2]).float().mean()
    return main, mtp, aux, acc, macc


def lr_at(step, total, peak, warmup=100):
    if step < warmup:
        return peak * (step + 1) / warmup
    f = min(1.0, (step - warmup) / max(1, total - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * f)))


def save_state(path, model, probe, opt, step, elapsed):
    tmp = path + ".tmp"
    torch.save(dict(model=model.state_dict(), probe=probe.state_dict(), opt=opt.state_dict(), step=step, elapsed=elapsed, config=model.config), tmp)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, help="folder for the resumable checkpoint (state.pt) and log")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--mtp-weight", type=float, default=0.3)
    ap.add_argument("--aux-weight", type=float, default=0.5)
    ap.add_argument("--save-minutes", type=float, default=4.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--stop-after-minutes", type=float, default=0, help="stop (resumably) after this long")
    ap.add_argument("--export", help="write the checkpoint folder (HF format) from the run's state and exit")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    os.makedirs(a.run, exist_ok=True)
    state_path = os.path.join(a.run, "state.pt")
    config = demo_config()
    model = Qwen35(config)
    init_weights(model, a.seed)
    probe = AuxProbe(config["vision_config"]["out_hidden_size"])
    params = list(model.parameters()) + list(probe.parameters())
    opt = torch.optim.AdamW(params, lr=a.lr, betas=(0.9, 0.98), weight_decay=0.01)
    step, elapsed = 0, 0.0
    if os.path.exists(state_path):
        st = torch.load(state_path)
        model.load_state_dict(st["model"])
        probe.load_state_dict(st["probe"])
        opt.load_state_dict(st["opt"])
        step, elapsed = st["step"], st["elapsed"]
        print(f"resumed at step {step} ({elapsed / 60:.1f} min trained)", flush=True)
    if a.export:
        export(model, a.export, step, elapsed, a)
        return
    tok = Tokenizer(os.path.join(TINY_A, "tokenizer.json"))
    log = open(os.path.join(a.run, "log.txt"), "a")
    t_save = time.time()
    t_start = time.time()
    model.train()
    while step < a.steps:
        t0 = time.time()
        batch = make_batch(tok, "train", range(step * a.batch, (step + 1) * a.batch), a.seed)
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step, a.steps, a.lr)
        main_loss, mtp_loss, aux_loss, acc, macc = losses(model, probe, batch)
        loss = main_loss + a.mtp_weight * mtp_loss + a.aux_weight * aux_loss
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        step += 1
        elapsed += time.time() - t0
        if step % 10 == 0 or step == 1:
            line = (f"step {step} loss {main_loss.item():.4f} acc {acc.item():.3f} mtp {mtp_loss.item():.4f} "
                    f"mtp_acc {macc.item():.3f} aux {aux_loss.item():.3f} lr {lr_at(step, a.steps, a.lr):.2e} {elapsed / 60:.1f} min "
                    f"({time.time() - t0:.2f} s/step, T={batch['ids'].shape[1]})")
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()
        if time.time() - t_save > a.save_minutes * 60 or step == a.steps:
            save_state(state_path, model, probe, opt, step, elapsed)
            t_save = time.time()
        if a.stop_after_minutes and time.time() - t_start > a.stop_after_minutes * 60:
            save_state(state_path, model, probe, opt, step, elapsed)
            print(f"stopping at step {step} (time limit); rerun to resume", flush=True)
            break


THINKING_DEFAULT = ("    {%- if enable_thinking is defined and enable_thinking is false %}\n"
                    "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
                    "    {%- else %}\n"
                    "        {{- '<think>\\n' }}\n"
                    "    {%- endif %}")
NON_THINKING_DEFAULT = ("    {%- if enable_thinking is defined and enable_thinking is true %}\n"
                        "        {{- '<think>\\n' }}\n"
                        "    {%- else %}\n"
                        "        {{- '<think>\\n\\n</think>\\n\\n' }}\n"
                        "    {%- endif %}")


def export(model, folder, step, elapsed, a):
    save_model(model, folder)
    for f in ("tokenizer.json", "tokenizer_config.json", "preprocessor_config.json", "generation_config.json"):
        shutil.copy(os.path.join(TINY_A, f), os.path.join(folder, f))
    # Qwen3.5's template in its 0.8B/2B form (non-thinking unless asked): the model answers
    # after "<think>\n\n</think>\n\n", as it was trained (text.GEN_PROMPT).
    with open(os.path.join(TINY_A, "chat_template.jinja")) as f:
        tpl = f.read()
    if tpl.count(THINKING_DEFAULT) != 1:
        raise SystemExit("tiny-a's chat_template.jinja: cannot find the generation-prompt block")
    with open(os.path.join(folder, "chat_template.jinja"), "w") as f:
        f.write(tpl.replace(THINKING_DEFAULT, NON_THINKING_DEFAULT))
    with open(os.path.join(folder, "training.json"), "w") as f:
        json.dump(dict(step=step, minutes=round(elapsed / 60, 1), seed=a.seed, batch=a.batch, lr=a.lr,
                       steps_planned=a.steps, mtp_weight=a.mtp_weight), f, indent=2)
        f.write("\n")
    print(f"wrote {folder} (step {step}, {elapsed / 60:.1f} min of training)")


if __name__ == "__main__":
    main()
