"""Qwen3.5's chat template (the 4B-and-up `chat_template.jinja`, tests/data/tiny-a's) rendered in
plain Python, for conversations without tools: a system message of text, user messages of text
and image parts in any order, assistant messages with or without reasoning.

Debian 12's python3 has no jinja2 and Hugging Face's transformers cannot be installed here, so
make_golden.py renders the prompt with this transcription of the template's own statements
(render_content, the last-query index, the assistant's reasoning split, the generation prompt);
check_renders() holds it against the renders Hugging Face made in a folder's
chat_template_renders.json before any golden is written. Anything the transcription does not
cover (tools, tool messages, videos, add_vision_id) is refused by name, never rendered
differently.
"""
import hashlib
import json
import os

# SHA-256 of the template this file transcribes (Qwen3.5-35B-A3B's published chat_template.jinja).
TEMPLATE_SHA256 = "a4aee8afcf2e0711942cf848899be66016f8d14a889ff9ede07bca099c28f715"
IMAGE = "<|vision_start|><|image_pad|><|vision_end|>"


def require_template(model_dir):
    """Refuses a model folder whose chat_template.jinja is not the one transcribed here."""
    path = os.path.join(model_dir, "chat_template.jinja")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != TEMPLATE_SHA256:
        raise SystemExit(f"{path}: SHA-256 {digest} is not the Qwen3.5 template chat_render.py transcribes")


def _content(content, where, system=False):
    # The template's render_content macro, then its `|trim` (jinja2's trim is Python's strip()).
    if content is None:
        return ""
    if isinstance(content, str):
        return content.strip()
    out = []
    for k, part in enumerate(content):
        kind = part.get("type")
        if kind == "image" or "image" in part or "image_url" in part:
            if system:
                raise ValueError(f"{where}: a system message cannot contain images (the template raises)")
            out.append(IMAGE)
        elif kind == "video" or "video" in part:
            raise ValueError(f"{where}, part {k}: videos are not transcribed")
        elif "text" in part:
            out.append(part["text"])
        else:
            raise ValueError(f"{where}, part {k}: unexpected item type (the template raises)")
    return "".join(out).strip()


def render(messages, add_generation_prompt=True, enable_thinking=None):
    """The template's text for `messages` (Hugging Face's message dicts). enable_thinking: None
    (unset), True or False, as apply_chat_template passes it."""
    if not messages:
        raise ValueError("no messages (the template raises)")
    text = ""
    if messages[0]["role"] == "system":
        text += "<|im_start|>system\n" + _content(messages[0]["content"], "message 0", system=True) + "<|im_end|>\n"
    last_query = None
    for i in range(len(messages) - 1, -1, -1):
        if messages[i]["role"] == "user":
            c = _content(messages[i]["content"], f"message {i}")
            if not (c.startswith("<tool_response>") and c.endswith("</tool_response>")):
                last_query = i
                break
    if last_query is None:
        raise ValueError("no user query found in messages (the template raises)")
    for i, m in enumerate(messages):
        where = f"message {i}"
        if "tool_calls" in m:
            raise ValueError(f"{where}: tool calls are not transcribed")
        content = _content(m.get("content"), where, system=m["role"] == "system")
        if m["role"] == "system":
            if i != 0:
                raise ValueError(f"{where}: a system message must be at the beginning (the template raises)")
        elif m["role"] == "user":
            text += "<|im_start|>user\n" + content + "<|im_end|>\n"
        elif m["role"] == "assistant":
            reasoning = ""
            if isinstance(m.get("reasoning_content"), str):
                reasoning = m["reasoning_content"]
            elif "</think>" in content:
                reasoning = content.split("</think>")[0].rstrip("\n").split("<think>")[-1].lstrip("\n")
                content = content.split("</think>")[-1].lstrip("\n")
            reasoning = reasoning.strip()
            if i > last_query:
                text += "<|im_start|>assistant\n<think>\n" + reasoning + "\n</think>\n\n" + content
            else:
                text += "<|im_start|>assistant\n" + content
            text += "<|im_end|>\n"
        else:
            raise ValueError(f"{where}: role '{m['role']}' is not transcribed")
    if add_generation_prompt:
        text += "<|im_start|>assistant\n"
        text += "<think>\n\n</think>\n\n" if enable_thinking is False else "<think>\n"
    return text


def check_renders(path):
    """Every tool-free render in a chat_template_renders.json (Hugging Face's) rendered again here:
    returns the number checked; raises SystemExit naming the first that differs."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    n = 0
    for r in doc["renders"]:
        if r.get("tools"):
            continue
        thinking = r["enable_thinking"] if isinstance(r["enable_thinking"], bool) else None
        got = render(r["messages"], r.get("add_generation_prompt", True), thinking)
        if got != r["text"]:
            raise SystemExit(f"{path}: chat_render.py renders '{r['conversation']}' (enable_thinking "
                             f"{r['enable_thinking']}) differently from Hugging Face:\n{got!r}\n{r['text']!r}")
        n += 1
    return n
