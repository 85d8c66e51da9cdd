"""The varied shapes world: the scenes of shapes_world.py drawn the way a person would draw them.

shapes_world.scene() puts every object exactly on one image token; a model trained only on that
learned the generator's grid, not shapes (issue 32: a third of hand-drawn pictures right). Here
objects sit anywhere in their cell (the caption's position is still the 3x3 cell of the object's
centre, kept CELL_MARGIN pixels from a cell border so that the word is not a coin toss), turned a
little, of any radius in their size class (larger ones too), anti-aliased, in a range of shades
of each colour name, on plain, two-tone, gradient, textured or noisy backgrounds, sometimes
blurred or JPEG-compressed. Same vocabulary, captions and questions as shapes_world.

Scene (split, index) is seeded by "varied:split:index", disjoint from shapes_world's seeds.
"""
import colorsys
import io
import random

import numpy as np
from PIL import Image, ImageFilter

import shapes_world as world

SIZE = world.SIZE
CELL = SIZE / 3
CELL_MARGIN = 6.0  # pixels between an object's centre and its cell's borders
# The "radius" r of shapes_world.shape_mask, by size word. shapes_world's 9 / 12 / 15 fall inside
# small / medium / large; "large" reaches well past them (a person draws big shapes).
SIZE_RANGES = {"small": (7.0, 10.5), "medium": (10.5, 13.5), "large": (13.5, 34.0)}


def set_large_max(r):
    """The largest 'large' radius. A centre must stay CELL_MARGIN inside its cell with the object
    inside the image (_place), which holds up to r = (CELL - CELL_MARGIN - 1) / 1.15."""
    limit = (CELL - CELL_MARGIN - 1) / 1.15
    if not SIZE_RANGES["large"][0] < r <= limit:
        raise ValueError(f"--large-max {r}: must be above {SIZE_RANGES['large'][0]} and at most {limit:.1f}")
    SIZE_RANGES["large"] = (SIZE_RANGES["large"][0], float(r))


# Turning a square by 45 degrees makes it a diamond (and a cross an x): those stay within 15.
MAX_TURN = {"circle": 0, "square": 15, "diamond": 15, "cross": 15, "triangle": 30, "star": 36}
# Each colour name as ranges of hue (degrees), saturation and value: shades of it, not one RGB.
HSV_RANGES = {
    "red": ((-10, 8), (0.70, 1.0), (0.65, 1.0)),
    "orange": ((22, 40), (0.75, 1.0), (0.85, 1.0)),
    "yellow": ((50, 62), (0.70, 1.0), (0.85, 1.0)),
    "green": ((95, 145), (0.60, 1.0), (0.40, 0.85)),
    "blue": ((205, 240), (0.70, 1.0), (0.65, 1.0)),
    "purple": ((268, 302), (0.50, 1.0), (0.42, 0.80)),
    "pink": ((318, 352), (0.22, 0.55), (0.90, 1.0)),
    "brown": ((16, 32), (0.60, 0.90), (0.30, 0.56)),
    "white": ((0, 360), (0.0, 0.05), (0.93, 1.0)),
    "black": ((0, 360), (0.0, 0.30), (0.0, 0.13)),
    "grey": ((0, 360), (0.0, 0.05), (0.42, 0.62)),
}
TOKEN = world.TOKEN
SUPERSAMPLE = 4  # samples per pixel side for anti-aliasing


def shade(name, rng):
    """A random RGB shade of a colour name."""
    (h0, h1), (s0, s1), (v0, v1) = HSV_RANGES[name]
    r, g, b = colorsys.hsv_to_rgb((rng.uniform(h0, h1) % 360) / 360, rng.uniform(s0, s1), rng.uniform(v0, v1))
    return (int(round(r * 255)), int(round(g * 255)), int(round(b * 255)))


def _place(rng, cell, r):
    """A centre inside `cell`, CELL_MARGIN from its borders, the object inside the image."""
    col, row = cell % 3, cell // 3
    lo = lambda k: max(k * CELL + CELL_MARGIN, 1.15 * r + 1)  # noqa: E731
    hi = lambda k: min((k + 1) * CELL - CELL_MARGIN, SIZE - 1.15 * r - 1)  # noqa: E731
    return rng.uniform(lo(col), hi(col)), rng.uniform(lo(row), hi(row))


def scene(split, index):
    """-> a scene dict as shapes_world.scene's (background, split_dir, objects with shape, colour,
    size, cell, cx, cy) plus r, angle, rgb per object and the drawing's own choices."""
    if split not in world.SPLITS:
        raise ValueError(f"unknown split {split!r}")
    rng = random.Random(f"varied:{split}:{index}")
    n = rng.choice([1, 1, 2, 2, 3])
    kind = rng.choices(["plain", "two-tone", "gradient", "two-tone-gradient", "texture"], [30, 20, 20, 15, 15])[0]
    two = kind.startswith("two-tone")
    bg = rng.sample(world.BACKGROUNDS, 2 if two else 1)
    split_dir = rng.choice(["tb", "lr"]) if two else None
    shapes = rng.sample(world.SHAPES, n)
    objects = []
    for shape, c in zip(shapes, sorted(rng.sample(range(9), n))):
        size = rng.choice(list(SIZE_RANGES))
        for _ in range(40):  # objects must not touch: shrink within the size class if they would
            r = rng.uniform(*SIZE_RANGES[size])
            cx, cy = _place(rng, c, r)
            if all((cx - o["cx"]) ** 2 + (cy - o["cy"]) ** 2 > (1.15 * (r + o["r"]) + 3) ** 2 for o in objects):
                break
            size = list(SIZE_RANGES)[max(0, list(SIZE_RANGES).index(size) - 1)]
        colour = rng.choice([x for x in world.OBJECT_COLOURS if x not in bg])
        objects.append(dict(shape=shape, colour=colour, size=size, cell=c, cx=cx, cy=cy, r=r,
                            angle=rng.uniform(-MAX_TURN[shape], MAX_TURN[shape]), rgb=shade(colour, rng)))
    return dict(split=split, index=index, style="varied", background=bg, split_dir=split_dir, objects=objects,
                kind=kind, bg_rgb=[shade(b, rng) for b in bg], border=rng.uniform(90, 134),
                gradient=(rng.uniform(0, 2 * np.pi), rng.uniform(0.08, 0.2)),
                texture=(rng.choice(["stripes", "checker", "waves"]), rng.uniform(4, 12), rng.uniform(6, 24)),
                noise=rng.uniform(2, 9) if rng.random() < 0.25 else 0.0,
                blur=rng.uniform(0.4, 1.1) if rng.random() < 0.2 else 0.0,
                jpeg=rng.randint(25, 90) if rng.random() < 0.3 else 0,
                pixel_seed=rng.getrandbits(32))


# Pixel centres, computed once: every scene's background reads them (drawing is what the
# curriculum's steps cost, README "A fourth look").
_YY, _XX = np.mgrid[0:SIZE, 0:SIZE].astype(np.float64) + 0.5
_YY.flags.writeable = _XX.flags.writeable = False


def _background(sc):
    yy, xx = _YY, _XX
    a = np.array(sc["bg_rgb"][0], dtype=np.float64)
    img = np.empty((SIZE, SIZE, 3))
    img[...] = a
    kind = sc["kind"]
    if kind.startswith("two-tone"):
        b = np.array(sc["bg_rgb"][1], dtype=np.float64)
        t = (yy if sc["split_dir"] == "tb" else xx) - sc["border"]
        # hard: a step at the border; gradient: a blend over the middle 40 % of the image
        w = (t > 0).astype(np.float64) if kind == "two-tone" else np.clip(0.5 + t / (0.4 * SIZE), 0, 1)
        img = a * (1 - w[..., None]) + b * w[..., None]
    elif kind == "gradient":  # one colour, lighter to darker across a random direction
        ang, depth = sc["gradient"]
        t = ((xx - SIZE / 2) * np.cos(ang) + (yy - SIZE / 2) * np.sin(ang)) / SIZE
        img = img * (1 + 2 * depth * t[..., None])
    elif kind == "texture":  # a faint pattern in the background's colour
        pattern, amp, period = sc["texture"]
        if pattern == "stripes":
            p = np.sign(np.sin(2 * np.pi * (xx + yy) / period))
        elif pattern == "checker":
            p = ((xx // period + yy // period) % 2) * 2 - 1
        else:
            p = np.sin(2 * np.pi * xx / period) * np.sin(2 * np.pi * yy / (1.3 * period))
        img = img + amp * p[..., None]
    return img


def _unit_polygon(shape):
    if shape == "square":
        return [(-0.82, -0.82), (0.82, -0.82), (0.82, 0.82), (-0.82, 0.82)]
    if shape == "diamond":
        return [(0, -1.1), (1.1, 0), (0, 1.1), (-1.1, 0)]
    if shape == "triangle":
        return [(0, -1), (0.95, 0.75), (-0.95, 0.75)]
    if shape == "cross":
        a, b = 1.0, 0.34
        return [(-b, -a), (b, -a), (b, -b), (a, -b), (a, b), (b, b), (b, a), (-b, a), (-b, b), (-a, b), (-a, -b), (-b, -b)]
    if shape == "star":
        return [((1.05 if k % 2 == 0 else 0.45) * np.cos(-np.pi / 2 + k * np.pi / 5),
                 (1.05 if k % 2 == 0 else 0.45) * np.sin(-np.pi / 2 + k * np.pi / 5)) for k in range(10)]
    raise ValueError(shape)


def coverage(o, y0, y1, x0, x1, ss=SUPERSAMPLE):
    """Fraction of each pixel of the box [y0:y1, x0:x1] that object o covers (ss x ss samples)."""
    off = (np.arange(ss) + 0.5) / ss
    ys = (np.arange(y0, y1)[:, None] + off[None, :]).reshape(-1)
    xs = (np.arange(x0, x1)[:, None] + off[None, :]).reshape(-1)
    yy, xx = np.meshgrid(ys, xs, indexing="ij")
    if o["shape"] == "circle":
        inside = (xx - o["cx"]) ** 2 + (yy - o["cy"]) ** 2 <= o["r"] ** 2
    else:
        c, s = np.cos(np.radians(o["angle"])), np.sin(np.radians(o["angle"]))
        pts = [(o["cx"] + o["r"] * (c * u - s * v), o["cy"] + o["r"] * (s * u + c * v)) for u, v in _unit_polygon(o["shape"])]
        inside = world._polygon_mask(xx, yy, pts)
    return inside.reshape(y1 - y0, ss, x1 - x0, ss).mean(axis=(1, 3))


def _box(o):
    e = 1.15 * o["r"] + 2
    return (max(0, int(o["cy"] - e)), min(SIZE, int(o["cy"] + e) + 1), max(0, int(o["cx"] - e)), min(SIZE, int(o["cx"] + e) + 1))


def object_coverage(sc, k):
    """SIZE x SIZE coverage (0..1) of object k."""
    out = np.zeros((SIZE, SIZE))
    y0, y1, x0, x1 = _box(sc["objects"][k])
    out[y0:y1, x0:x1] = coverage(sc["objects"][k], y0, y1, x0, x1)
    return out


def covers(sc):
    """[each object's coverage in its box, the box]: what silhouettes and token labels need,
    without drawing the picture."""
    out = []
    for o in sc["objects"]:
        y0, y1, x0, x1 = _box(o)
        out.append((coverage(o, y0, y1, x0, x1), (y0, y1, x0, x1)))
    return out


def _draw(sc):
    """-> (HxWx3 uint8 image, covers(sc))."""
    img = _background(sc)
    drawn = covers(sc)
    for o, (a, (y0, y1, x0, x1)) in zip(sc["objects"], drawn):
        img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - a[..., None]) + np.array(o["rgb"], dtype=np.float64) * a[..., None]
    if sc["noise"]:
        img += np.random.default_rng(sc["pixel_seed"]).normal(0, sc["noise"], img.shape)
    np.round(img, out=img)
    np.clip(img, 0, 255, out=img)
    out = Image.fromarray(img.astype(np.uint8))
    if sc["blur"]:
        out = out.filter(ImageFilter.GaussianBlur(sc["blur"]))
    if sc["jpeg"]:
        buf = io.BytesIO()
        out.save(buf, format="JPEG", quality=sc["jpeg"])
        out = Image.open(io.BytesIO(buf.getvalue())).convert("RGB")
    return np.asarray(out, dtype=np.uint8).copy(), drawn


def render(sc):
    """-> HxWx3 uint8 image."""
    return _draw(sc)[0]


def own_token(o):
    """Raster index of the image token (32-pixel square of the 7x7 grid) holding the object's centre."""
    g = SIZE // TOKEN
    return min(g - 1, int(o["cy"] // TOKEN)) * g + min(g - 1, int(o["cx"] // TOKEN))


def silhouette(drawn):
    """The silhouettes of a drawn varied scene (_draw's result, or (None, covers(sc))): each object's anti-aliased
    coverage, white on black, without the scene's colours, background, noise, blur or JPEG."""
    out = np.zeros((SIZE, SIZE))
    for a, (y0, y1, x0, x1) in drawn[1]:
        out[y0:y1, x0:x1] = np.maximum(out[y0:y1, x0:x1], a)
    return np.repeat(np.round(out * 255).astype(np.uint8)[..., None], 3, axis=2)


def token_window(img, token, span=3, grid=7):
    """The span x span-token window of img (HxWx3) around `token` (raster index in the grid x grid
    token grid), shifted inside the image at the borders -> (crop, the window's tokens [span*span]
    as raster indices of the whole grid, `token`'s index in the window)."""
    r, c = divmod(token, grid)
    r0, c0 = min(max(r - span // 2, 0), grid - span), min(max(c - span // 2, 0), grid - span)
    crop = img[r0 * TOKEN:(r0 + span) * TOKEN, c0 * TOKEN:(c0 + span) * TOKEN]
    tokens = [(r0 + i) * grid + c0 + j for i in range(span) for j in range(span)]
    return crop, tokens, (r - r0) * span + (c - c0)


def token_labels(sc, grid=7, drawn=None):
    """As shapes_world.token_labels (shape+1 / colour index / size+1 of what covers >= 10 % of each
    token, else 0 / background colour / 0), plus a fourth row: on the token that holds an
    object's centre, that object's 3x3 cell; -100 (ignored) elsewhere. Works for both worlds.
    drawn: a varied scene's _draw(sc), when the caller has it already."""
    if sc.get("style") != "varied":
        shape, colour, size, img = world.token_labels(sc, grid)
        cover = [world.object_mask(sc, k).astype(np.float64) for k in range(len(sc["objects"]))]
    else:
        img, boxes = drawn if drawn is not None else _draw(sc)
        cover = []
        for a, (y0, y1, x0, x1) in boxes:
            cover.append(np.zeros((SIZE, SIZE)))
            cover[-1][y0:y1, x0:x1] = a
        names = list(world.COLOURS)
        centre = (np.arange(grid) + 0.5) * TOKEN
        if sc["split_dir"] is None:
            side = np.zeros((grid, grid), dtype=np.int64)
        else:
            t = centre[:, None] if sc["split_dir"] == "tb" else centre[None, :]
            side = np.broadcast_to((t > sc["border"]).astype(np.int64), (grid, grid))
        colour = np.array([names.index(sc["background"][s]) for s in side.reshape(-1)]).reshape(grid, grid)
        shape = np.zeros((grid, grid), dtype=np.int64)
        size = np.zeros((grid, grid), dtype=np.int64)
        best = np.zeros((grid, grid))
        for k, o in enumerate(sc["objects"]):
            cov = cover[k].reshape(grid, TOKEN, grid, TOKEN).mean(axis=(1, 3))
            take = (cov >= 0.1) & (cov > best)
            best[take] = cov[take]
            shape[take] = world.SHAPES.index(o["shape"]) + 1
            size[take] = list(world.SIZES).index(o["size"]) + 1
            colour[take] = names.index(o["colour"])
        shape, colour, size = shape.reshape(-1), colour.reshape(-1), size.reshape(-1)
    # The token that holds an object's centre names that object, however little of it the token
    # covers (a small object near a token's corner leaves under 10 % of itself there).
    cell = np.full(grid * grid, -100, dtype=np.int64)
    for o in sc["objects"]:
        t = own_token(o)
        cell[t] = o["cell"]
        shape[t] = world.SHAPES.index(o["shape"]) + 1
        size[t] = list(world.SIZES).index(o["size"]) + 1
        colour[t] = list(world.COLOURS).index(o["colour"])
    return shape, colour, size, cell, img


def training_scene(split, index, varied_fraction):
    """Scene `index` of the training mix: the varied world with probability varied_fraction (a
    fixed draw per index), else shapes_world's."""
    if varied_fraction > 0 and random.Random(f"mix:{split}:{index}").random() < varied_fraction:
        return scene(split, index)
    return world.scene(split, index)
