"""The checkpoint's tokenizer and chat template, for the ASCII text of the shapes world.

Training must feed the model the same token ids the C++ engine produces, so this follows
tokenizer.json exactly (docs/ of the model spec, section 5.1): special tokens matched verbatim,
then the Qwen3.5 split regex, GPT-2 byte-level mapping and BPE by merge rank. Python's `re` has
no \\p{L}; for ASCII text the classes reduce to [A-Za-z] / [0-9], so non-ASCII text is refused
rather than tokenized differently. test_twin.py checks this against tokenizer_cases.json.
"""
import json
import re

_SPLIT = re.compile(
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\nA-Za-z0-9]?[A-Za-z]+|[0-9]| ?[^\sA-Za-z0-9]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+")


def _byte_to_unicode():
    # GPT-2's reversible byte -> printable character map.
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


class Tokenizer:
    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            j = json.load(f)
        self.vocab = j["model"]["vocab"]
        merges = j["model"]["merges"]
        self.ranks = {tuple(m) if isinstance(m, list) else tuple(m.split(" ")): i for i, m in enumerate(merges)}
        self.special = {t["content"]: t["id"] for t in j["added_tokens"]}
        # Added tokens marked "special" (not <think>, <tool_call>, ...): what decoding with
        # skip_special_tokens=True leaves out.
        self.special_ids = {t["id"] for t in j["added_tokens"] if t.get("special")}
        self.id_to_token = {i: t for t, i in self.vocab.items()}
        self.id_to_token.update({i: t for t, i in self.special.items()})
        self.b2u = _byte_to_unicode()
        self.u2b = {u: b for b, u in self.b2u.items()}
        self._special_re = re.compile("|".join(re.escape(s) for s in sorted(self.special, key=len, reverse=True)))
        self._cache = {}

    def _bpe(self, word):
        if word in self._cache:
            return self._cache[word]
        parts = list(word)
        while len(parts) > 1:
            best = min(((self.ranks.get((parts[i], parts[i + 1]), 1 << 30), i) for i in range(len(parts) - 1)))
            if best[0] == 1 << 30:
                break
            i = best[1]
            parts = parts[:i] + [parts[i] + parts[i + 1]] + parts[i + 2:]
        ids = [self.vocab[p] for p in parts]
        self._cache[word] = ids
        return ids

    def _encode_plain(self, text):
        if not text.isascii():
            raise ValueError(f"text.py tokenizes ASCII text only: {text!r}")
        ids = []
        for piece in _SPLIT.findall(text):
            ids += self._bpe("".join(self.b2u[b] for b in piece.encode("utf-8")))
        return ids

    def encode(self, text):
        ids, pos = [], 0
        for m in self._special_re.finditer(text):
            ids += self._encode_plain(text[pos:m.start()])
            ids.append(self.special[m.group(0)])
            pos = m.end()
        return ids + self._encode_plain(text[pos:])

    def decode(self, ids, skip_special=False):
        out = bytearray()
        for i in ids:
            if skip_special and int(i) in self.special_ids:
                continue
            t = self.id_to_token[int(i)]
            if t in self.special:
                out += t.encode()
            else:
                out += bytes(self.u2b[c] for c in t)
        return out.decode("utf-8", errors="replace")


IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"
GEN_PROMPT = "<|im_start|>assistant\n<think>\n\n</think>\n\n"  # the shipped template's default (non-thinking)


def render_conversation(turns, n_image_tokens):
    """turns: [(user_text, answer)], the first user turn carries the image.

    Returns (text_segments, is_target) as the C++ engine's template would render the conversation
    when asked for the LAST answer: earlier assistant turns appear as history
    (`<|im_start|>assistant\\n{answer}<|im_end|>\\n`, no think block), the last one follows the
    generation prompt and ends with <|im_end|> (the stop token). is_target marks the answers.
    """
    segs = []
    for k, (question, answer) in enumerate(turns):
        user = (IMAGE if k == 0 else "") + question
        segs.append(("<|im_start|>user\n" + user.strip() + "<|im_end|>\n", False))
        if k + 1 < len(turns):
            segs.append(("<|im_start|>assistant\n", False))
            segs.append((answer + "<|im_end|>", True))
            segs.append(("\n", False))
        else:
            segs.append((GEN_PROMPT, False))
            segs.append((answer + "<|im_end|>", True))
    return segs


def encode_conversation(tok, turns, n_image_tokens):
    """-> (ids, target_mask) with <|image_pad|> expanded to n_image_tokens copies."""
    pad = tok.special["<|image_pad|>"]
    ids, mask = [], []
    for text, target in render_conversation(turns, n_image_tokens):
        seg = tok.encode(text)
        out = []
        for t in seg:
            out += [pad] * n_image_tokens if t == pad else [t]
        ids += out
        mask += [target] * len(out)
    return ids, mask
