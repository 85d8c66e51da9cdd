"""A stand-in for the few parts of Hugging Face `transformers` that llama.cpp's
convert_hf_to_gguf.py touches when it converts a Qwen3.5 checkpoint written by
`glance-cli make-model` (Debian 12 does not package `transformers`).

Only tools/bench/side_by_side.sh puts this folder on PYTHONPATH. It provides:
  * AutoConfig.from_pretrained(dir).to_dict()  -> config.json as written;
  * AutoTokenizer.from_pretrained(dir)          -> a byte-level BPE tokenizer read
    from tokenizer.json / tokenizer_config.json with .vocab, .get_vocab(),
    .get_added_vocab(), .added_tokens_decoder, .encode() and .decode().
    encode() handles text that is exactly one added token (all the converter
    asks of it for this model); anything else raises, so a converter path that
    needs real tokenisation fails loudly instead of writing a wrong vocabulary.
    The pre-tokenizer hash check (the one place that encodes free text) is
    replaced by tools/bench/convert_qwen35.py.
Anything else raises ImportError / AttributeError naming what is missing.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

__version__ = "0.0.0-glance-standin"


class _Config:
    def __init__(self, d: dict):
        self._d = d

    def to_dict(self) -> dict:
        return json.loads(json.dumps(self._d))

    def __getattr__(self, name):
        try:
            return self._d[name]
        except KeyError:
            raise AttributeError(name) from None


class AutoConfig:
    @staticmethod
    def from_pretrained(path, trust_remote_code: bool = False, **kwargs) -> _Config:
        with open(Path(path) / "config.json", encoding="utf-8") as f:
            return _Config(json.load(f))


@dataclass
class AddedToken:
    content: str
    special: bool = False
    normalized: bool = False
    lstrip: bool = False
    rstrip: bool = False
    single_word: bool = False

    def __str__(self) -> str:
        return self.content


def _bytes_to_unicode() -> dict[int, str]:
    # GPT-2's byte <-> printable character table (the same one tokenizers' ByteLevel uses).
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, (chr(c) for c in cs)))


class _ByteLevelBpeTokenizer:
    def __init__(self, path: Path):
        tj_path = path / "tokenizer.json"
        if not tj_path.is_file():
            raise FileNotFoundError(f"transformers stand-in: no tokenizer.json in {path}")
        with open(tj_path, encoding="utf-8") as f:
            tj = json.load(f)
        model = tj.get("model", {})
        if model.get("type") != "BPE":
            raise NotImplementedError(f"transformers stand-in: tokenizer model type {model.get('type')!r}, only BPE")
        self._base_vocab: dict[str, int] = dict(model["vocab"])
        self.added_tokens_decoder: dict[int, AddedToken] = {}
        for a in tj.get("added_tokens", []):
            self.added_tokens_decoder[int(a["id"])] = AddedToken(
                content=a["content"], special=bool(a.get("special", False)),
                normalized=bool(a.get("normalized", False)), lstrip=bool(a.get("lstrip", False)),
                rstrip=bool(a.get("rstrip", False)), single_word=bool(a.get("single_word", False)))
        self.vocab: dict[str, int] = dict(self._base_vocab)
        for i, t in self.added_tokens_decoder.items():
            self.vocab[t.content] = i
        self._id_to_token = {i: t for t, i in self.vocab.items()}
        self._byte_decoder = {c: b for b, c in _bytes_to_unicode().items()}
        self.pre_tokenizer = tj.get("pre_tokenizer")
        self.bos_token = None
        self.eos_token = None
        cfg = path / "tokenizer_config.json"
        if cfg.is_file():
            with open(cfg, encoding="utf-8") as f:
                c = json.load(f)
            self.bos_token = c.get("bos_token")
            self.eos_token = c.get("eos_token")

    def __len__(self) -> int:
        return len(self.vocab)

    def get_vocab(self) -> dict[str, int]:
        return dict(self.vocab)

    def get_added_vocab(self) -> dict[str, int]:
        return {t.content: i for i, t in self.added_tokens_decoder.items()}

    def encode(self, text: str, add_special_tokens: bool = True, **kwargs) -> list[int]:
        for i, t in self.added_tokens_decoder.items():
            if t.content == text:
                return [i]
        raise NotImplementedError(
            "transformers stand-in (tools/bench/hf_standin): encode() only maps a whole added token; "
            f"asked for {text[:40]!r}")

    def convert_ids_to_tokens(self, ids):
        if isinstance(ids, int):
            return self._id_to_token[ids]
        return [self._id_to_token[i] for i in ids]

    def decode(self, ids, skip_special_tokens: bool = False, **kwargs) -> str:
        if isinstance(ids, int):
            ids = [ids]
        out: list[str] = []
        pending = bytearray()
        for i in ids:
            if i in self.added_tokens_decoder:
                if pending:
                    out.append(pending.decode("utf-8", errors="replace"))
                    pending = bytearray()
                if not (skip_special_tokens and self.added_tokens_decoder[i].special):
                    out.append(self.added_tokens_decoder[i].content)
            else:
                pending.extend(self._byte_decoder[c] for c in self._id_to_token[i])
        if pending:
            out.append(pending.decode("utf-8", errors="replace"))
        return "".join(out)


class AutoTokenizer:
    @staticmethod
    def from_pretrained(path, trust_remote_code: bool = False, **kwargs) -> _ByteLevelBpeTokenizer:
        return _ByteLevelBpeTokenizer(Path(path))


def __getattr__(name):
    raise AttributeError(
        f"transformers stand-in (tools/bench/hf_standin) has no {name!r}: the converter took a path "
        "this stand-in does not cover (it covers Qwen3.5 checkpoints written by glance-cli make-model)")
