#!/usr/bin/env python3
"""The demo vision tower taught shape by a silhouette-to-colour curriculum (issue 32, README "A
fourth look"): vision tower + linear probes only, on crops (each object's own-token 3x3-token
window, 96 px, its place's learned positions), fresh varied-world scenes every step.

Phases (--phases, --steps and --lrs, one entry each):
  sil    every scene drawn as its silhouettes (white on black)
  blend  half silhouettes, half blended from silhouette to colour over the phase's first 60 %
  mix    a quarter silhouettes, the rest in colour
  scene  as mix, on whole scenes instead of crops (the same probes on each object's own token)
The colour probe is asked only of scenes with colour in them (not of pure silhouettes). Each
phase starts a fresh AdamW (0.9/0.98, wd 0.01, clip 1) and train.lr_at with 50 warm-up steps.
Logs the probes on the varied val scenes 0-255 (each object's own token, whole scenes) every
--val-every steps. OUT/state.pt resumes a cut run; --init-from STATE continues another run's
tower and probes (fresh optimiser, its scenes go on where that run's stopped).

  nice -n 10 /usr/bin/python3 tools/twin/vision_curriculum.py --out /tmp/run
  nice -n 10 /usr/bin/python3 tools/twin/vision_curriculum.py --out /tmp/run2 --init-from /tmp/run/state.pt \\
      --phases mix --steps 6000 --lrs 0.002
"""
import argparse
import os
import random
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import train  # noqa: E402
import varied_world  # noqa: E402
from demo_config import add_vision_flags, demo_config  # noqa: E402
from model import Qwen35, patchify  # noqa: E402

FIRST_SCENE = 20_000_000  # train split, apart from train.py's joint (0 on) and vision (10,000,000 on) scenes
GRID = 7  # tokens a side of a whole scene; a crop is 3x3 tokens = 6x6 patches


def draw(index, kind, t):
    """Train scene `index` as kind 'sil' (silhouettes), 'colour', or 'blend' (silhouette -> colour
    at t in [0, 1]) -> (HxWx3 uint8, token labels as varied_world.token_labels, colour asked?)."""
    sc = varied_world.scene("train", index)
    # A pure silhouette needs only the objects' coverage, not the coloured picture (most of a
    # scene's drawing time: 3 against 13 ms, measured on a loaded machine).
    drawn = (None, varied_world.covers(sc)) if kind == "sil" else varied_world._draw(sc)
    shape, colour, size, cell, img = varied_world.token_labels(sc, drawn=drawn)
    if kind == "sil":
        img = varied_world.silhouette(drawn)
    elif kind == "blend":
        sil = varied_world.silhouette(drawn).astype(np.float64)
        img = np.round((1 - t) * sil + t * img).astype(np.uint8)
    return img, np.stack([shape, colour, size, cell]), kind != "sil"


def scene_kind(phase, index, step, steps):
    """(kind, t) of scene `index` in step `step` of a phase of `steps` (a fixed draw per index)."""
    u = random.Random(f"curriculum:{phase}:{index}").random()
    if phase == "sil":
        return "sil", 0.0
    if phase == "blend":
        return ("sil", 0.0) if u < 0.5 else ("blend", min(1.0, step / (0.6 * steps)))
    if phase in ("mix", "scene"):
        return ("sil", 0.0) if u < 0.25 else ("colour", 1.0)
    raise ValueError(phase)


class Crops(torch.utils.data.Dataset):
    """Item (phase, step, steps, first scene) -> one step's crops: pixels [n, 36, 1536], the
    windows' tokens [n, 9], labels [n, 4] of each crop's object (shape+1, colour, size+1, cell),
    its own token's place in the window [n], colour asked [n]."""

    def __init__(self, batch):
        self.batch = batch

    def __getitem__(self, item):
        phase, step, steps, first = item
        pix, toks, labels, where, ask = [], [], [], [], []
        for index in range(first, first + self.batch):
            kind, t = scene_kind(phase, index, step, steps)
            img, lab, colour = draw(index, kind, t)
            for tok in np.flatnonzero(lab[3] >= 0):
                crop, window, own = varied_world.token_window(img, int(tok), 3, GRID)
                pix.append(patchify(np.ascontiguousarray(crop))[0])
                toks.append(window)
                labels.append(lab[:, tok])
                where.append(own)
                ask.append(colour)
        return (torch.stack(pix), torch.tensor(toks), torch.from_numpy(np.stack(labels)),
                torch.tensor(where), torch.tensor(ask))


class Scenes(torch.utils.data.Dataset):
    """Item as Crops's -> one step's whole scenes (phase 'scene'): pixels [B, 196, 1536], labels
    [B, 4, 49] as varied_world.token_labels, colour asked [B]."""

    def __init__(self, batch):
        self.batch = batch

    def __getitem__(self, item):
        phase, step, steps, first = item
        pix, labels, ask = [], [], []
        for index in range(first, first + self.batch):
            kind, t = scene_kind(phase, index, step, steps)
            img, lab, colour = draw(index, kind, t)
            pix.append(patchify(img)[0])
            labels.append(torch.from_numpy(lab))
            ask.append(colour)
        return torch.stack(pix), torch.stack(labels), torch.tensor(ask)


def own_token_loss(probe, own, labels, ask):
    """The probes on objects' own tokens own [n, C] with labels [n, 4] (shape+1, colour, size+1,
    cell); colour only where ask [n] -> (loss, the shape probe's accuracy)."""
    loss = (F.cross_entropy(probe.shape(own), labels[:, 0]) + F.cross_entropy(probe.size(own), labels[:, 2])
            + F.cross_entropy(probe.cell(own), labels[:, 3]))
    if ask.any():
        loss = loss + F.cross_entropy(probe.colour(own[ask]), labels[ask][:, 1])
    return loss, (probe.shape(own).argmax(-1) == labels[:, 0]).float().mean().item()


def scene_loss(vis, probe, pix, labels, ask):
    """The crops' loss on whole scenes: each object's own token now attends over the whole
    picture (the crops' tower reads a whole scene's objects less well, README "A fifth look")."""
    img = vis(pix, 14, 14)
    own = labels[:, 3] >= 0                                           # [B, 49]
    return own_token_loss(probe, img[own], labels.permute(0, 2, 1)[own], ask[:, None].expand_as(own)[own])


def crop_loss(vis, probe, pix, toks, labels, where, ask):
    img = vis(pix, 6, 6, pe=vis.window_pe(2 * GRID, 2 * GRID, toks))
    return own_token_loss(probe, img[torch.arange(img.shape[0]), where], labels, ask)


def val_set(n=256):
    """Whole varied val scenes 0..n-1, coloured and as silhouettes: (pixels, silhouette pixels, labels)."""
    pix, sil, labels = [], [], []
    for i in range(n):
        sc = varied_world.scene("val", i)
        drawn = varied_world._draw(sc)
        shape, colour, size, cell, img = varied_world.token_labels(sc, drawn=drawn)
        pix.append(patchify(img)[0])
        sil.append(patchify(varied_world.silhouette(drawn))[0])
        labels.append(torch.from_numpy(np.stack([shape, colour, size, cell])))
    return torch.stack(pix), torch.stack(sil), torch.stack(labels)


@torch.no_grad()
def evaluate(vis, probe, val):
    """Own-token read-outs on the val scenes: shape, colour, cell (coloured), shape (silhouettes)."""
    pix, sil, labels = val
    own = labels[:, 3] >= 0
    out = []
    for p, heads in ((pix, ((probe.shape, 0), (probe.colour, 1), (probe.cell, 3))), (sil, ((probe.shape, 0),))):
        img = torch.cat([vis(p[i:i + 64], 14, 14) for i in range(0, len(p), 64)])[own]
        out += [(h(img).argmax(-1) == labels[:, k][own]).float().mean().item() for h, k in heads]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="folder for state.pt (resumable) and log.txt")
    ap.add_argument("--phases", default="sil,blend,mix")
    ap.add_argument("--steps", default="2500,2500,2000", help="steps per phase")
    ap.add_argument("--lrs", default="0.003,0.003,0.002", help="peak lr per phase")
    ap.add_argument("--batch", type=int, default=32, help="scenes a step (each gives its objects' crops)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--init-from", help="a state.pt of this script: its tower and probes, scenes from where it stopped")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="processes drawing scenes (0: in the trainer)")
    add_vision_flags(ap)
    ap.add_argument("--large-max", type=float, default=varied_world.SIZE_RANGES["large"][1],
                    help="the varied world's largest 'large' radius in pixels, as train.py's; the val scenes too (default %(default)s)")
    ap.add_argument("--val-every", type=int, default=250)
    ap.add_argument("--save-every", type=int, default=250)
    a = ap.parse_args()
    try:
        varied_world.set_large_max(a.large_max)  # before the loader's workers fork: they draw with it
    except ValueError as e:
        ap.error(str(e))
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    phases = a.phases.split(",")
    steps = [int(s) for s in a.steps.split(",")]
    lrs = [float(s) for s in a.lrs.split(",")]
    assert len(phases) == len(steps) == len(lrs)
    os.makedirs(a.out, exist_ok=True)
    state_path = os.path.join(a.out, "state.pt")
    model = Qwen35(demo_config(a))
    train.init_weights(model, a.seed)
    vis = model.model.visual
    with torch.no_grad():
        vis.pos_embed.weight.mul_(8)  # as train_demo.sh (--scale-vision-positions 8)
    probe = train.AuxProbe(vis.vc["out_hidden_size"], own_token=True)
    c = dict(phase=0, step=0, next_scene=FIRST_SCENE, elapsed=0.0, cpu_seconds=0.0, total_steps=0)
    st = None
    if os.path.exists(state_path):
        st = torch.load(state_path)
    elif a.init_from:
        src = torch.load(a.init_from)
        vis.load_state_dict(src["visual"])
        probe.load_state_dict(src["probe"])
        c.update(next_scene=src["next_scene"], total_steps=src["total_steps"])
    if st is not None:
        vis.load_state_dict(st["visual"])
        probe.load_state_dict(st["probe"])
        c.update({k: st[k] for k in c})
    log = open(os.path.join(a.out, "log.txt"), "a")

    def say(line):
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    val = val_set()
    crops, scenes = Crops(a.batch), Scenes(a.batch)
    params = list(vis.parameters()) + list(probe.parameters())
    while c["phase"] < len(phases):
        ph, n, lr = phases[c["phase"]], steps[c["phase"]], lrs[c["phase"]]
        opt = torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.98), weight_decay=0.01)
        if st is not None and st["phase"] == c["phase"] and st.get("opt"):
            opt.load_state_dict(st["opt"])
        first = c["next_scene"] - c["step"] * a.batch  # this phase's first scene
        items = [(ph, s, n, first + s * a.batch) for s in range(c["step"], n)]
        data, step_loss = (scenes, scene_loss) if ph == "scene" else (crops, crop_loss)
        loader = torch.utils.data.DataLoader(data, batch_size=None, sampler=items, num_workers=a.workers,
                                             worker_init_fn=lambda _: torch.set_num_threads(1))
        say(f"phase {ph} ({c['phase'] + 1}/{len(phases)}) from step {c['step']} of {n}, lr {lr}, scenes from {c['next_scene']}")
        t0, p0 = time.time(), time.process_time()
        for batch in loader:
            s = c["step"]
            for grp in opt.param_groups:
                grp["lr"] = train.lr_at(s, n, lr, warmup=50)
            loss, acc = step_loss(vis, probe, *batch)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            c["step"] += 1
            c["total_steps"] += 1
            c["next_scene"] += a.batch
            now, cpu = time.time(), time.process_time()
            c["elapsed"] += now - t0
            c["cpu_seconds"] += cpu - p0
            t0, p0 = now, cpu
            if c["step"] % 50 == 0:
                say(f"{ph} step {c['step']} loss {loss.item():.3f} batch shape {acc:.3f} {data.__class__.__name__.lower()} {len(batch[0])} "
                    f"{c['elapsed'] / 60:.1f} min ({c['cpu_seconds'] / 60:.1f} CPU)")
            done = c["step"] == n
            if c["step"] % a.val_every == 0 or done:
                shape, colour, cell, sil = evaluate(vis, probe, val)
                say(f"VAL {ph} step {c['step']} (total {c['total_steps']}): shape {shape:.3f} colour {colour:.3f} "
                    f"cell {cell:.3f} silhouette shape {sil:.3f} {c['elapsed'] / 60:.1f} min ({c['cpu_seconds'] / 60:.1f} CPU)")
                t0, p0 = time.time(), time.process_time()  # the val pass is not counted
            if c["step"] % a.save_every == 0 or done:
                if done:
                    c["phase"], c["step"] = c["phase"] + 1, 0
                torch.save(dict(visual=vis.state_dict(), probe=probe.state_dict(), opt=None if done else opt.state_dict(),
                                **c), state_path + ".tmp")
                os.replace(state_path + ".tmp", state_path)
                st = None
    say("done")


if __name__ == "__main__":
    main()
