#!/usr/bin/env python3
"""Writes the small hand-made seed inputs under tests/fuzz/seeds/<harness>/ (committed; rerun
after changing a format). Larger seeds come straight from tests/data at run time (run.sh)."""
import hashlib, json, os, struct, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data", "tiny-a")


def put(harness, name, data):
    d = os.path.join(HERE, "seeds", harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def safetensors(tensors, meta=None):
    header, blob = {}, b""
    if meta:
        header["__metadata__"] = meta
    for name, dtype, shape, data in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h)) + h + blob


put("safetensors", "f32_bf16.safetensors", safetensors(
    [("a", "F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4)), ("b", "BF16", [3], b"\x80\x3f" * 3),
     ("c", "F16", [1, 1], b"\x00\x3c"), ("e", "F32", [0, 4], b"")], {"format": "pt"}))
put("safetensors", "ints.safetensors", safetensors(
    [("i8", "I8", [4], b"\x01\xff\x02\xfe"), ("u8", "U8", [2], b"\x00\xff"),
     ("i32", "I32", [1], struct.pack("<i", -5)), ("i64", "I64", [1, 1], struct.pack("<q", 7))]))

# A minimal byte-level BPE tokenizer.json: the 256 byte-level characters, a few merges, two
# added tokens, in the Qwen3.5 pipeline shape (small, so the fuzzer runs fast).
def byte_chars():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b); cs.append(256 + n); n += 1
    return {b: chr(c) for b, c in zip(bs, cs)}

tiny_tok = json.load(open(os.path.join(DATA, "tokenizer.json")))
chars = byte_chars()
vocab = {chars[b]: b for b in range(256)}
merges = [["t", "h"], ["th", "e"], ["Ġ", "the"], ["e", "r"]]
for a, b in merges:
    vocab[a + b] = len(vocab)
small = dict(tiny_tok)
small["model"] = dict(tiny_tok["model"], vocab=vocab, merges=merges)
small["added_tokens"] = [
    {"id": len(vocab), "content": "<|im_start|>", "single_word": False, "lstrip": False, "rstrip": False,
     "normalized": False, "special": True},
    {"id": len(vocab) + 1, "content": "<|im_end|>", "single_word": False, "lstrip": False, "rstrip": False,
     "normalized": False, "special": True}]
put("tokenizer_load", "small_tokenizer.json", json.dumps(small))
small_strings = dict(small)
small_strings["model"] = dict(small["model"], merges=[" ".join(m) for m in merges])
put("tokenizer_load", "small_tokenizer_string_merges.json", json.dumps(small_strings))

cases = json.load(open(os.path.join(DATA, "tokenizer_cases.json")))["cases"]
for i, c in enumerate(cases):
    put("tokenizer_encode", "case%02d.txt" % i, c["text"])
put("tokenizer_encode", "thethe.txt", "the" * 2000)

template = open(os.path.join(DATA, "chat_template.jinja")).read()
put("chat_template", "tiny_a", template + "\0Describe the picture. <think>x</think>")
put("chat_template", "tiny_a_empty", template + "\0")

# Weight cache: one F32 4x4 entry under the key "k" (the format weight_cache.cpp reads; its
# kVersion, 4 since the footer, must match or every seed is refused at the header). The footer:
# "GLWCEND1", the file's length, the length of the header and entry table and their sha256 (hex).
WEIGHT_CACHE_VERSION = 4
def cache(entries):
    out = b"GLWCACHE" + struct.pack("<II", WEIGHT_CACHE_VERSION, len(entries)) + b"k"
    head = []
    pos = 512
    for name, wtype, rows, cols, dbytes, sbytes in entries:
        head.append((name, wtype, rows, cols, pos, dbytes, pos + dbytes + (-dbytes % 64), sbytes))
        pos += dbytes + (-dbytes % 64) + sbytes + (-sbytes % 64)
    for name, wtype, rows, cols, doff, dbytes, soff, sbytes in head:
        out += struct.pack("<H", len(name)) + name.encode() + struct.pack("<BqqQQQQ", wtype, rows, cols, doff, dbytes, soff, sbytes)
    table = out
    out += b"\0" * (512 - len(out))
    out += b"\x11" * (pos - 512)
    return (out + b"GLWCEND1" + struct.pack("<QQ", len(out) + 88, len(table)) +
            hashlib.sha256(table).hexdigest().encode())

put("weight_cache", "f32.bin", cache([("m.weight", 0, 4, 4, 64, 0)]))
put("weight_cache", "q8.bin", cache([("m.weight", 3, 4, 32, 4 * 32, 4 * 4)]))
put("weight_cache", "q4_two.bin", cache([("m.weight", 4, 1, 32, 16, 2), ("n.weight", 1, 2, 4, 16, 0)]))

# NPU bundle: manifest.txt NUL tensors.txt NUL tensors.bin.
manifest = ("version 1\nparam D 64\nparam I 128\nparam layer_types lin,att\nparam rounding floor\n"
            "xclbin gemm gemm.xclbin MLIR_AIE\n"
            "gemm q M=64 K=64 N=64 lda=64 c_stride=64 b_bytes=4096 a_elems=4096 c_elems=4096 ctx=gemm insts=q.bin\n"
            "gemv head M=64 K=64 w_words=1024 ctx=gemm insts=h.bin\n")
tensors = "w.q u8 4096 0 4096\nnorm f32 64 4096 256\n"
put("npu_bundle", "small", manifest + "\0" + tensors + "\0" + "\x01" * 4352)
put("npu_bundle", "empty_tensors", "version 1\n\0\0")

for name in ("config.json",):
    put("config", "tiny_a_" + name, open(os.path.join(DATA, name)).read())

# model_json: "<preprocessor_config.json>\0<generation_config.json>", from tiny-a, the demo
# model, and the released checkpoints' sampling block.
DEMO = os.path.join(HERE, "..", "..", "resources", "demo-model")
for tag, folder in (("tiny_a", DATA), ("demo", DEMO)):
    put("model_json", tag, open(os.path.join(folder, "preprocessor_config.json")).read() + "\0" +
        open(os.path.join(folder, "generation_config.json")).read())
put("model_json", "sampling", '{"min_pixels": 3136, "max_pixels": 1003520, "patch_size": 14}\0'
    '{"do_sample": true, "temperature": 0.6, "top_k": 20, "top_p": 0.95, "repetition_penalty": 1.05}')

conv = {"format": "glance-conversation", "version": 2, "id": "fuzz", "title": "A chat",
        "created": "2026-01-02T03:04:05Z", "updated": "2026-01-02T03:05:00Z", "system_prompt": "",
        "model": "tiny-a", "precision": "f32",
        "turns": [{"user": "What is this?", "images": [], "answer": "A cat.", "stop_reason": "eos",
                   "model": "tiny-a", "stats": {}, "words": [], "attention": []}]}
put("conversation_store", "one_turn.json", json.dumps(conv, indent=1))
conv["turns"] = []
put("conversation_store", "no_turns.json", json.dumps(conv))

# The settings file (ui/settings_file.h): JSON, a value a string, number, bool or {"bytes": base64}.
put("settings", "settings.json", json.dumps({"glance_settings": 1, "values": {
    "settings/temperature": "0.7", "settings/top_p": "0.9", "settings/threads": "4", "settings/precision": "q8",
    "settings/max_new_tokens": "512", "view/theme": "dark", "attention/opacity": 55, "attention/grid": True,
    "window/geometry": {"bytes": "AdnQywADAAA="}}}, indent=1))
put("settings", "bad_values.json", json.dumps({"glance_settings": 1, "values": {
    "settings/temperature": "hot", "settings/top_p": 2, "settings/unknown_key": "1", "other/x": "\u0000",
    "settings/seed": True, "window/state": {"bytes": "not base64!"}}}))
# Numbers outside a 64-bit integer's range (the fuzzer found a cast of 5.5e54 to qint64).
put("settings", "huge_numbers.json", '{"glance_settings": 1, "values": {"a": 5.51111e54, "b": -1e300, '
    '"c": 9223372036854775808, "d": 1.5, "e": -0}}')

# chat_request: bodies of POST /v1/chat/completions (server/chat_request.h), one with a 1x1 PNG
# as a data URL, and a bare data URL (the harness also reads its input as one).
def png_1x1():
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(b"\0\xff\0\0")) + chunk(b"IEND", b""))
import base64
png_url = "data:image/png;base64," + base64.b64encode(png_1x1()).decode()
put("chat_request", "text.json", json.dumps({"model": "glance", "messages": [{"role": "user", "content": "hi"}]}))
put("chat_request", "image_and_options.json", json.dumps({
    "messages": [{"role": "developer", "content": "Be brief."},
                 {"role": "user", "content": [{"type": "text", "text": "What is this?"},
                                              {"type": "image_url", "image_url": {"url": png_url}}]},
                 {"role": "assistant", "content": "A red dot."},
                 {"role": "user", "content": [{"type": "text", "text": "And now?"}]}],
    "max_tokens": 16, "stream": True, "stream_options": {"include_usage": True}, "temperature": 0.7,
    "top_p": 0.9, "top_k": 20, "presence_penalty": 0.5, "seed": 7, "n": 1, "stop": ["\n\n", "END"],
    "glance": {"attention": True, "image_mode": "detail"}}))
put("chat_request", "greedy.json", json.dumps({"messages": [{"role": "user", "content": "x"}],
                                               "temperature": 0, "max_completion_tokens": 3, "stop": "."}))
put("chat_request", "data_url.txt", png_url)

# chat_request with the structured-output and logprobs fields (issue 29).
put("chat_request", "json_schema_logprobs.json", json.dumps({
    "messages": [{"role": "user", "content": "Shape?"}], "logprobs": True, "top_logprobs": 2,
    "response_format": {"type": "json_schema", "json_schema": {"name": "s", "strict": True, "schema": {
        "type": "object", "properties": {"shape": {"enum": ["circle", "star"]}, "n": {"type": "integer"}},
        "required": ["shape", "n"], "additionalProperties": False}}}}))
put("chat_request", "json_object.json", json.dumps({"messages": [{"role": "user", "content": "x"}],
                                                    "response_format": {"type": "json_object"}}))

# chat_request with tools: a tool loop (an assistant's calls, their results) and a named choice (issue 29).
put("chat_request", "tools.json", json.dumps({
    "messages": [{"role": "user", "content": "Weather in Paris?"},
                 {"role": "assistant", "content": None, "tool_calls": [
                     {"id": "call_1", "type": "function",
                      "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
                 {"role": "tool", "tool_call_id": "call_1", "content": "21 C"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "The weather",
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                              "required": ["city"]}}}],
    "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "parallel_tool_calls": False,
    "glance": {"forced_answer": "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>"}}))

# json_schema: "<schema>\0<document>" (core/text/json_grammar.h): the ctest schemas with a
# document each schema accepts, and a recursive one.
put("json_schema", "object", '{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},'
    '"required":["name","age"],"additionalProperties":false}\0{"name": "A\\u00e9\\"", "age": -12}')
put("json_schema", "defs_anyof", '{"$defs":{"p":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"],'
    '"additionalProperties":false}},"anyOf":[{"$ref":"#/$defs/p"},{"type":"array","items":{"enum":[1,"a",null]},"maxItems":3}]}'
    '\0[1, "a", null]')
put("json_schema", "recursive", '{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#"},'
    '{"type":"null"}]}},"required":["v","next"],"additionalProperties":false}\0{"v":1,"next":{"v":2,"next":null}}')
put("json_schema", "any", '{}\0{"k": [1.5e3, true, {"s": "\xc3\xa9"}]}')
# String rules (pattern, format, minLength/maxLength), with an escape and UTF-8 inside them.
put("json_schema", "string_rules", '{"type":"object","properties":{"d":{"type":"string","format":"date"},'
    '"p":{"type":"string","pattern":"^[a-z]+(?:-\\\\d{2})?$|^x.{0,3}\\\\u00e9$","maxLength":12},'
    '"n":{"type":"string","minLength":2,"maxLength":4}},"required":["d","p","n"],"additionalProperties":false}'
    '\0{"d": "2024-02-29", "p": "abc-12", "n": "\\u00e9\u00e9x"}')
