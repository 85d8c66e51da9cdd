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

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import shapes_world as world  # noqa: E402
import varied_world  # noqa: E402
from checkpoint import load_model, save_model  # noqa: E402
from demo_config import TINY_A, add_vision_flags, demo_config  # noqa: E402
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


def vision_batch(split, indices, varied=0.0):
    """Pixels and per-token (shape, colour, size, own-token cell) labels of the scenes `indices`
    of `split` (varied: the fraction drawn from the varied world, varied_world.training_scene)."""
    pix, labels = [], []
    for i in indices:
        shape, colour, size, cell, img = varied_world.token_labels(varied_world.training_scene(split, i, varied))
        pix.append(patchify(img)[0])
        labels.append(torch.from_numpy(np.stack([shape, colour, size, cell])))
    return torch.stack(pix), torch.stack(labels)


def content_phrases(tok):
    """Token sequences of the words that carry a scene's content (position phrases, colours,
    shapes, sizes), as they appear inside an answer (after a space)."""
    words = world.POSITIONS + list(world.COLOURS) + world.SHAPES + list(world.SIZES)
    return [tok.encode(" " + w) for w in words]


def content_weights(ids, target, phrases, weight, w=None):
    """Per-token loss weights: `weight` on the answer tokens inside a content phrase, else 1 (or
    what `w` says)."""
    w = [1.0] * len(ids) if w is None else w
    for p in phrases:
        n = len(p)
        for t in range(len(ids) - n + 1):
            if ids[t:t + n] == p and target[t]:
                w[t:t + n] = [weight] * n
    return w


def yes_no_phrases(tok):
    """The tokens that decide a "Is there ...?" answer ("Yes," / "No," opening it, or " yes." /
    " no." closing a reasoned one: shapes_world.exists_answer)."""
    return [tok.encode("Yes,"), tok.encode("No,"), tok.encode(" yes."), tok.encode(" no.")]


def make_batch(tok, split, indices, seed, content_weight=1.0, near_misses=False, yes_no_weight=1.0, varied=0.0,
               reasoned=False, missing_weight=1.0):
    """-> dict of tensors for the scenes `indices` of `split` (conversation rng from seed);
    `weight`: each token's loss weight (content_weight on content words, see content_weights);
    near_misses, reasoned: see shapes_world.qa_turns; yes_no_weight: the weight of "Yes," / "No,";
    missing_weight: the weight of " missing" in "The star is missing, so no."; varied: see
    vision_batch."""
    pixels, labels = vision_batch(split, indices, varied)
    seqs, masks = [], []
    for i in indices:
        sc = varied_world.training_scene(split, i, varied)
        turns = world.conversation(sc, random.Random(f"{seed}:{split}:{i}"), near_misses, reasoned)
        ids, mask = encode_conversation(tok, turns, N_IMG)
        seqs.append(ids)
        masks.append(mask)
    T = max(len(s) for s in seqs)
    pad = tok.special["<|endoftext|>"]
    ids = torch.full((len(seqs), T), pad, dtype=torch.long)
    tgt = torch.zeros((len(seqs), T), dtype=torch.bool)
    weight = torch.ones((len(seqs), T))
    # (phrases, weight) for each weighting asked for, applied in this order
    weighted = [(p(), w) for p, w in ((lambda: content_phrases(tok), content_weight),
                                      (lambda: yes_no_phrases(tok), yes_no_weight),
                                      (lambda: [tok.encode(" missing")], missing_weight)) if w != 1.0]
    pos = torch.zeros((len(seqs), 3, T), dtype=torch.long)
    for b, (s, m) in enumerate(zip(seqs, masks)):
        ids[b, :len(s)] = torch.tensor(s)
        tgt[b, :len(s)] = torch.tensor(m)
        if weighted:
            w = None
            for phrases, phrase_weight in weighted:
                w = content_weights(s, m, phrases, phrase_weight, w)
            weight[b, :len(s)] = torch.tensor(w)
        p, _ = mrope_positions(s + [pad] * (T - len(s)), tok.special["<|image_pad|>"], [GRID])
        pos[b] = p
    return dict(pixels=pixels, ids=ids, target=tgt, positions=pos, labels=labels, weight=weight)


def joint_indices(step, batch, favour_three, varied=0.0, offset=0):
    """The train-split scenes of joint step `step`: the next `batch` indices, or with
    favour_three the three-object scenes of the next 2 * batch first, then the others in order
    (scenes with 1/2/3 objects ~30/30/40 % instead of 40/40/20 %: three-object captions were
    the shipped model's most frequent misses)."""
    if not favour_three:
        return list(range(offset + step * batch, offset + (step + 1) * batch))
    cand = range(offset + 2 * step * batch, offset + 2 * (step + 1) * batch)
    three = [i for i in cand if len(varied_world.training_scene("train", i, varied)["objects"]) == 3]
    rest = [i for i in cand if i not in three]
    return (three + rest)[:batch]


class AuxProbe(torch.nn.Module):
    """Training-only linear probes on the image tokens (shape / colour / size of what covers each
    token): a dense signal that teaches the small vision tower to see faster. Not shipped."""

    def __init__(self, dim, own_token=False, own_only=False):
        super().__init__()
        # own_only (with own_token): the own-token questions only, as vision_curriculum.py asks
        # them; the every-token ones cost the curriculum's tower 4 points on its own tokens in 400
        # steps (README "A sixth look").
        self.own_only = own_only
        # own_token: each object's shape, colour, size and 3x3 cell are asked on the token that
        # holds its centre (varied_world.token_labels' fourth row), not on every token it covers:
        # in the varied world an object spans several tokens and its cell is not theirs.
        self.own_token = own_token
        self.shape = torch.nn.Linear(dim, len(world.SHAPES) + 1)
        self.colour = torch.nn.Linear(dim, len(world.COLOURS))
        self.size = torch.nn.Linear(dim, len(world.SIZES) + 1)
        # Where each token is (its 3x3 grid cell): the tower's output otherwise keeps too little
        # of its position embedding for the language model to say where an object is (a linear
        # read-out of the cell from an object's token was at chance, 11 %, without this probe).
        self.cell = torch.nn.Linear(dim, len(world.POSITIONS))
        self.register_buffer("token_cell", torch.from_numpy(world.token_grid_cells()), persistent=False)

    def forward(self, img, labels):
        if self.own_token:
            own = labels[:, 3] >= 0
            asked = sum(F.cross_entropy(head(img[own]), labels[:, k][own])
                        for k, head in enumerate((self.shape, self.colour, self.size, self.cell)))
            if self.own_only:
                return asked
        every = sum(F.cross_entropy(head(img).flatten(0, 1), labels[:, k].flatten())
                    for k, head in enumerate((self.shape, self.colour, self.size)))
        # Most tokens are background; the object's own token (one per object: shapes_world puts
        # each object inside one token) gets its shape, size and cell asked again, so their
        # gradient is not diluted by the background. (With the cell asked over all tokens only,
        # the background tokens learned it and the object tokens did not: a linear read-out of
        # the cell from an object's token stayed at chance, 11 %, at step 1280.)
        cells = self.token_cell.expand(img.shape[0], -1)
        where = F.cross_entropy(self.cell(img).flatten(0, 1), cells.flatten())
        if self.own_token:
            return every + where + asked
        obj = labels[:, 0] > 0
        return every + where + sum(F.cross_entropy(head(img[obj]), target[obj])
                                   for head, target in ((self.shape, labels[:, 0]), (self.size, labels[:, 2]),
                                                        (self.cell, cells)))

    def shape_accuracy(self, img, labels):
        obj = labels[:, 3] >= 0 if self.own_token else labels[:, 0] > 0
        return (self.shape(img[obj]).argmax(-1) == labels[:, 0][obj]).float().mean()

    def cell_accuracy(self, img, labels):
        """The 3x3 cell read from the object tokens (what the language model must say)."""
        if self.own_token:
            own = labels[:, 3] >= 0
            return (self.cell(img[own]).argmax(-1) == labels[:, 3][own]).float().mean()
        obj = labels[:, 0] > 0
        cells = self.token_cell.expand(img.shape[0], -1)
        return (self.cell(img[obj]).argmax(-1) == cells[obj]).float().mean()


def grow_from(model, start):
    """Loads `start` (a state dict) into `model`, which may have more vision blocks or a wider
    vision MLP: the model computes what `start` did (new blocks and new MLP units add zero: their
    output weights are zero) and can learn from there (Net2Net-style growth, Chen et al. 2016)."""
    own = model.state_dict()
    with torch.no_grad():
        for name, t in own.items():
            if name in start and start[name].shape == t.shape:
                t.copy_(start[name])
            elif name in start:  # a wider vision MLP: the old units first
                t.copy_(torch.zeros_like(t) if "linear_fc2.weight" in name else t)
                t[tuple(slice(0, n) for n in start[name].shape)] = start[name]
            elif ".visual.blocks." in name and ("attn.proj." in name or "mlp.linear_fc2." in name):
                t.zero_()  # a new block starts as the identity
    unknown = [n for n in start if n not in own]
    if unknown:
        raise SystemExit(f"--init-from: tensors the model does not have: {unknown[:3]}")
    model.load_state_dict(own)


def losses(model, probe, batch):
    img = model.model.visual(batch["pixels"], 14, 14)
    aux = probe(img, batch["labels"])
    hidden, _, _ = model(batch["ids"], batch["positions"], img)
    ids, tgt = batch["ids"], batch["target"]
    # Main head: position t predicts ids[t+1] where ids[t+1] is part of an answer, weighted by
    # ids[t+1]'s weight (content words can count more: they carry what the model must see).
    sel = tgt[:, 1:]
    logits = model.head(hidden[:, :-1][sel])
    main = (F.cross_entropy(logits, ids[:, 1:][sel], reduction="none") * batch["weight"][:, 1:][sel]).mean()
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


def save_state(path, model, probe, opt, counters):
    tmp = path + ".tmp"
    torch.save(dict(model=model.state_dict(), probe=probe.state_dict(), opt=opt.state_dict(), config=model.config, **counters), tmp)
    os.replace(tmp, path)


def take_step(opt, params, loss, c, counter, t0, p0):
    """One optimiser step on `loss`, counted in c[counter], with the wall and CPU time since t0, p0."""
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    c[counter] += 1
    c["elapsed"] += time.time() - t0
    c["cpu_seconds"] += time.process_time() - p0


class Checkpoints:
    """Writes the run's state every --save-minutes and after the last step, and ends the run
    (resumably, state written) once --stop-after-minutes have passed."""

    def __init__(self, a, state_path, model, probe, opt, c):
        self.a, self.state_path, self.parts, self.c = a, state_path, (model, probe, opt), c
        self.t_save = self.t_start = time.time()

    def stop_after_step(self, counter):
        """Call after each step counted in c[counter] ("step" or "vision_step"); True: stop now."""
        a, c = self.a, self.c
        if time.time() - self.t_save > a.save_minutes * 60 or c[counter] == a.steps:
            save_state(self.state_path, *self.parts, c)
            self.t_save = time.time()
        if (a.stop_after_minutes and time.time() - self.t_start > a.stop_after_minutes * 60) or c[counter] == a.stop_at_step:
            save_state(self.state_path, *self.parts, c)
            print(f"stopping at {counter.replace('_', ' ')} {c[counter]}; rerun to resume", flush=True)
            return True
        return False


# The vision-only phase draws its scenes from here on in the train split, apart from the joint phase's.
VISION_OFFSET = 10_000_000


def train_vision(model, probe, opt, params, a, c, state_path):
    """--vision-only: the vision tower and the probes alone (no language model: ~10x cheaper a
    scene), so the tower learns to tell the shapes before the language model must name them."""
    vis = model.model.visual
    checkpoints = Checkpoints(a, state_path, model, probe, opt, c)
    while c["vision_step"] < a.steps:
        t0, p0 = time.time(), time.process_time()
        s = c["vision_step"]
        first = VISION_OFFSET + a.scene_offset + s * a.batch
        pix, labels = vision_batch("train", range(first, first + a.batch), a.varied)
        for grp in opt.param_groups:
            grp["lr"] = lr_at(s, a.steps, a.lr, warmup=20)
        img = vis(pix, 14, 14)
        loss = probe(img, labels)
        take_step(opt, params, loss, c, "vision_step", t0, p0)
        if c["vision_step"] % 20 == 0:
            print(f"vision step {c['vision_step']} aux {loss.item():.3f} shape acc {probe.shape_accuracy(img, labels).item():.3f} "
                  f"cell acc {probe.cell_accuracy(img, labels).item():.3f} {c['elapsed'] / 60:.1f} min "
                  f"({c['cpu_seconds'] / 60:.1f} CPU)", flush=True)
        if checkpoints.stop_after_step("vision_step"):
            break


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--run", required=True, help="folder for the resumable checkpoint (state.pt) and log")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--mtp-weight", type=float, default=0.3)
    ap.add_argument("--aux-weight", type=float, default=0.5)
    ap.add_argument("--aux-own-only", action="store_true",
                    help="with --varied: the probes ask each object's own token only, not every token (as the "
                         "vision curriculum does)")
    ap.add_argument("--content-weight", type=float, default=1.0,
                    help="loss weight of the answers' content words (positions, colours, shapes, sizes)")
    ap.add_argument("--yes-no-weight", type=float, default=1.0,
                    help="loss weight of the 'Yes,' / 'No,' that opens an answer to 'Is there ...?'")
    ap.add_argument("--missing-weight", type=float, default=1.0,
                    help="loss weight of ' missing' in a reasoned 'Is there ...?' answer ('The star is missing, so "
                         "no.'); with --content-weight W > 1 and this at 1, the colour words that compete for that "
                         "slot weigh W times more, and a model unsure of a shape names a colour (issue 32)")
    ap.add_argument("--near-misses", action="store_true",
                    help="absent pairs in 'Is there ...?' mostly differ from a present object in colour or shape only")
    ap.add_argument("--favour-three-objects", action="store_true",
                    help="joint steps take the three-object scenes of twice the batch first (see joint_indices)")
    ap.add_argument("--init-from", help="a fresh run starts from this exported model folder's weights (the probes start fresh)")
    ap.add_argument("--init-vision-from",
                    help="a fresh run takes its vision tower and probes from this vision_curriculum.py state.pt "
                         "(after --init-from's weights, which it replaces for the tower)")
    ap.add_argument("--varied", type=float, default=0.0,
                    help="fraction of the training scenes drawn from the varied world (varied_world.py); the probes "
                         "then ask each object's labels on its own token")
    ap.add_argument("--large-max", type=float, default=varied_world.SIZE_RANGES["large"][1],
                    help="the varied world's largest 'large' radius in pixels (default %(default)s); larger ones "
                         "span two cells, as a person's big shapes do (issue 32)")
    ap.add_argument("--reasoned-exists", action="store_true",
                    help="'Is there ...?' answered 'The square is blue, so no.' (shapes_world.exists_answer)")
    ap.add_argument("--scene-offset", type=int, default=0,
                    help="train-split scene indices start here (a later phase sees scenes an earlier one did not)")
    add_vision_flags(ap)
    ap.add_argument("--save-minutes", type=float, default=4.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--stop-after-minutes", type=float, default=0, help="stop (resumably) after this long")
    ap.add_argument("--stop-at-step", type=int, default=0,
                    help="stop (resumably) once this step is done, e.g. to export it; the lr schedule stays --steps's")
    ap.add_argument("--freeze-vision", action="store_true",
                    help="joint steps leave the vision tower's patch embedding, positions and blocks as loaded; the "
                         "merger into the language model still learns (joint steps had cost the curriculum's tower "
                         "9 points on hand-drawn pictures, README 'A sixth look')")
    ap.add_argument("--vision-only", action="store_true",
                    help="train only the vision tower and its probes, to --steps vision steps (a phase of its own)")
    ap.add_argument("--export", help="write the checkpoint folder (HF format) from the run's state and exit")
    ap.add_argument("--scale-vision-positions", type=float,
                    help="multiply the run's vision position table by this, save the state and exit (see README)")
    a = ap.parse_args()
    try:
        varied_world.set_large_max(a.large_max)
    except ValueError as e:
        ap.error(str(e))
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    os.makedirs(a.run, exist_ok=True)
    state_path = os.path.join(a.run, "state.pt")
    config = demo_config(a)
    model = Qwen35(config)
    init_weights(model, a.seed)
    if a.aux_own_only and not a.varied:
        ap.error("--aux-own-only needs --varied: only the varied world's labels name each object's own token")
    probe = AuxProbe(config["vision_config"]["out_hidden_size"], own_token=a.varied > 0, own_only=a.aux_own_only)
    params = list(model.parameters()) + list(probe.parameters())
    later = list(probe.cell.parameters())  # added after the first 560 steps: a group of its own
    first = [p for p in params if all(p is not q for q in later)]
    opt = torch.optim.AdamW([dict(params=first), dict(params=later)], lr=a.lr, betas=(0.9, 0.98), weight_decay=0.01)
    # step: joint steps; vision_step: vision-only steps; elapsed: wall seconds; cpu_seconds: this
    # process's CPU time (the same as wall on an idle machine, less on a shared one).
    c = dict(step=0, vision_step=0, elapsed=0.0, cpu_seconds=0.0)
    if os.path.exists(state_path):
        st = torch.load(state_path)
        model.load_state_dict(st["model"])
        probe.load_state_dict(st["probe"], strict=False)  # a state from before the cell probe lacks it
        saved = st["opt"]
        if len(saved["param_groups"]) < len(opt.param_groups):  # ditto: the cell probe starts fresh
            saved["param_groups"].append(opt.state_dict()["param_groups"][1])
        opt.load_state_dict(saved)
        c.update({k: st[k] for k in c if k in st})
        print(f"resumed at step {c['step']}, vision step {c['vision_step']} ({c['elapsed'] / 60:.1f} min trained)", flush=True)
    else:
        if a.init_from:
            start, _ = load_model(a.init_from)
            grow_from(model, start.state_dict())
            print(f"starting from {a.init_from}", flush=True)
        if a.init_vision_from:
            # The curriculum's tower (issue 32): same vision config, so its whole state loads;
            # the probes' heads are the same Linear layers whatever own_token says.
            src = torch.load(a.init_vision_from)
            model.model.visual.load_state_dict(src["visual"])
            probe.load_state_dict(src["probe"], strict=False)
            print(f"vision tower and probes from {a.init_vision_from} (curriculum step {src.get('total_steps')})",
                  flush=True)
    if a.export:
        export(model, a.export, c, a)
        return
    if a.scale_vision_positions:
        # The learned position table had stayed ~25x smaller than the patch embeddings (RMS 0.12
        # vs 3.2): an object's own token, dominated by the object, kept no trace of where it was.
        # Scaled up, the tower learns to carry the cell in a few minutes of --vision-only steps.
        with torch.no_grad():
            model.model.visual.pos_embed.weight.mul_(a.scale_vision_positions)
        save_state(state_path, model, probe, opt, c)
        print(f"vision position table x{a.scale_vision_positions}; state saved")
        return
    if a.vision_only:
        train_vision(model, probe, opt, params, a, c, state_path)
        return
    if a.freeze_vision:
        vis = model.model.visual
        for part in (vis.patch_embed, vis.pos_embed, vis.blocks):
            part.requires_grad_(False)  # no gradient: AdamW leaves them (and their weight decay) alone
    step = c["step"]
    tok = Tokenizer(os.path.join(TINY_A, "tokenizer.json"))
    log = open(os.path.join(a.run, "log.txt"), "a")
    checkpoints = Checkpoints(a, state_path, model, probe, opt, c)
    model.train()
    while step < a.steps:
        t0, p0 = time.time(), time.process_time()
        batch = make_batch(tok, "train", joint_indices(step, a.batch, a.favour_three_objects, a.varied, a.scene_offset),
                           a.seed, a.content_weight, a.near_misses, a.yes_no_weight, a.varied, a.reasoned_exists,
                           a.missing_weight)
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step, a.steps, a.lr)
        main_loss, mtp_loss, aux_loss, acc, macc = losses(model, probe, batch)
        loss = main_loss + a.mtp_weight * mtp_loss + a.aux_weight * aux_loss
        take_step(opt, params, loss, c, "step", t0, p0)
        step, elapsed = c["step"], c["elapsed"]
        if step % 10 == 0 or step == 1:
            line = (f"step {step} loss {main_loss.item():.4f} acc {acc.item():.3f} mtp {mtp_loss.item():.4f} "
                    f"mtp_acc {macc.item():.3f} aux {aux_loss.item():.3f} lr {lr_at(step, a.steps, a.lr):.2e} {elapsed / 60:.1f} min "
                    f"({c['cpu_seconds'] / 60:.1f} CPU) "
                    f"({time.time() - t0:.2f} s/step, T={batch['ids'].shape[1]})")
            print(line, flush=True)
            log.write(line + "\n")
            log.flush()
        if checkpoints.stop_after_step("step"):
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


def export(model, folder, c, a):
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
        json.dump(dict(step=c["step"], vision_step=c["vision_step"], minutes=round(c["elapsed"] / 60, 1),
                       cpu_minutes=round(c["cpu_seconds"] / 60, 1), seed=a.seed, batch=a.batch, lr=a.lr,
                       steps_planned=a.steps, mtp_weight=a.mtp_weight, init_from=a.init_from, varied=a.varied,
                       reasoned_exists=a.reasoned_exists, scene_offset=a.scene_offset, large_max=a.large_max), f, indent=2)
        f.write("\n")
    print(f"wrote {folder} (step {c['step']}, vision step {c['vision_step']}, {c['elapsed'] / 60:.1f} min of training)")


if __name__ == "__main__":
    main()
