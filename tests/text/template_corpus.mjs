// Renders a generated corpus of conversations with @huggingface/jinja — Hugging Face's own
// JavaScript Jinja, the one transformers.js uses — on a checkpoint's chat_template.jinja, and
// writes the renders for test_template_corpus, which renders the same conversations through
// Glance's prompt path and compares text and token ids (issue 28).
//
// usage: node template_corpus.mjs OUT.json COUNT TEMPLATE.jinja [TEMPLATE.jinja ...]
// The corpus is a pure function of COUNT (a fixed-seed generator): the same cases every run.
import { readFileSync, writeFileSync } from "node:fs";
import { Environment, Template } from "@huggingface/jinja";

// One correction, to Python's semantics: @huggingface/jinja 0.5.13's str.lstrip(chars) and
// str.rstrip(chars) ignore `chars` and strip all whitespace, while jinja2 — what Hugging Face's
// transformers renders the template with — runs Python's str methods, which strip only `chars`.
// The Qwen3.5 template relies on it: an answer "x </think> after" keeps its " after" in
// transformers (content.split('</think>')[-1].lstrip('\n')). Found by this corpus; without the
// correction the two renders differ on such answers, and transformers' is the reference.
function pythonStrip(value, chars, left, right) {
  const strip = chars === undefined || chars === null ? null : new Set(chars);
  const drop = (c) => (strip ? strip.has(c) : /\s/.test(c));
  let a = 0, b = value.length;
  if (left) while (a < b && drop(value[a])) a++;
  if (right) while (b > a && drop(value[b - 1])) b--;
  return value.slice(a, b);
}
{
  const probe = new Environment();
  probe.set("s", "");
  const StringValue = probe.lookupVariable("s").constructor;
  const builtins = Object.getOwnPropertyDescriptor(StringValue.prototype, "builtins").get;
  Object.defineProperty(StringValue.prototype, "builtins", {
    get() {
      const map = builtins.call(this);
      if (!map.pythonStrip) {
        const FunctionValue = map.get("upper").constructor;
        const self = this;
        const arg = (args) => (args.length > 0 && typeof args[0].value === "string" ? args[0].value : null);
        map.set("lstrip", new FunctionValue((args) => new StringValue(pythonStrip(self.value, arg(args), true, false))));
        map.set("rstrip", new FunctionValue((args) => new StringValue(pythonStrip(self.value, arg(args), false, true))));
        map.set("strip", new FunctionValue((args) => new StringValue(pythonStrip(self.value, arg(args), true, true))));
        map.pythonStrip = true;
      }
      return map;
    },
  });
}

const [out, countArg, ...templates] = process.argv.slice(2);
if (!out || !countArg || templates.length === 0) {
  console.error("usage: node template_corpus.mjs OUT.json COUNT TEMPLATE.jinja [...]");
  process.exit(2);
}
const count = Number(countArg);

// mulberry32: a small fixed-seed generator, so the corpus is the same on every machine.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Texts chosen for the template's edges: trim at both ends, newlines, non-ASCII, the words
// it splits reasoning on, things that look like markup.
const TEXTS = [
  "Describe this image.", "What is on the table?", "Look at this picture: ", " What colour is it? ",
  "Which of these two is older?", "and", " or ", "\nThen this one:\n", "Compare them.", "   ",
  "Answer in one sentence.", "Ünïcødé — 日本語のテキスト 🙂", "a < b && c > d", "Line one\nLine two",
  "", "Picture 1: not an image", "<b>bold</b> and *stars*", "\t tab at start", "end with newline\n",
  "Is there a red square?", "{\"json\": [1, 2]}", "why?", "Is the second image brighter?",
];
const ANSWERS = [
  "A red circle on a white background.", "Yes.", "No, it is blue.", "  spaced answer  ",
  "<think>\nLet me look.\n</think>\n\nA cat.", "<think>short</think>The table holds a cup.",
  "Two shapes.\n\nOne is large.", "The first one.", "", "Ünïcødé answer 🙂",
  "reasoning without tags </think> after", "<think>\n\n</think>\n\nNothing here.",
];
const SYSTEMS = ["You are a helpful assistant.", "  Answer briefly.  ", "Describe images for blind users.\nBe exact.", ""];

function pick(r, xs) { return xs[Math.floor(r() * xs.length)]; }

// One user message: 0-4 images at any position among 0-3 text parts, as a content list or
// (sometimes, when there is no image) a plain string.
function userMessage(r) {
  const images = Math.floor(r() * 5) * (r() < 0.8 ? 1 : 0);
  const texts = Math.floor(r() * 4);
  if (images === 0 && texts <= 1 && r() < 0.4) return { role: "user", content: pick(r, TEXTS) || "Hello." };
  const parts = [];
  for (let i = 0; i < texts; i++) parts.push({ type: "text", text: pick(r, TEXTS) });
  for (let i = 0; i < images; i++) parts.splice(Math.floor(r() * (parts.length + 1)), 0, { type: "image" });
  if (parts.length === 0) parts.push({ type: "text", text: "Hello." });
  return { role: "user", content: parts };
}

function assistantMessage(r) {
  const m = { role: "assistant", content: pick(r, ANSWERS) };
  if (r() < 0.25) m.reasoning_content = pick(r, ["I should look closely.", "  spaced reasoning \n", ""]);
  if (r() < 0.15) m.content = [{ type: "text", text: m.content }];
  return m;
}

// Tools as a client sends them (OpenAI's function tools, JSON-Schema parameters; key order,
// nesting, non-ASCII and quotes matter to the tools block, which writes each with tojson).
const TOOLS = [
  { type: "function", function: { name: "get_weather", description: "Weather for a city.",
    parameters: { type: "object", properties: { city: { type: "string", description: "City name, e.g. \"Paris\"" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] } }, required: ["city"] } } },
  { type: "function", function: { name: "count_shapes", description: "Count shapes of a colour — schnell.",
    parameters: { type: "object", properties: { colour: { type: "string" }, min_size: { type: "number", minimum: 0.5 },
      limit: { type: "integer" } }, required: ["colour"], additionalProperties: false } } },
  { type: "function", function: { name: "tag_image", description: "Tag an image.",
    parameters: { type: "object", properties: { tags: { type: "array", items: { type: "string" } },
      box: { type: "object", properties: { x: { type: "integer" }, y: { type: "integer" } } } } } } },
];
// Argument values avoid booleans, null and whole floats: @huggingface/jinja's `string` filter
// writes true/false/null and JavaScript numbers lose "2.0" (jinja2 writes True/False/None and
// 2.0); Glance follows Python there (test_chat_template checks it).
const CALLS = [
  { name: "get_weather", arguments: { city: "Paris" } },
  { name: "get_weather", arguments: { unit: "celsius", city: "Zürich \"centre\"" } },
  { name: "count_shapes", arguments: { colour: "red", min_size: 1.5, limit: 3 } },
  { name: "tag_image", arguments: { tags: ["cat", "table"], box: { x: 3, y: 4 } } },
  { name: "tag_image", arguments: {} },
  { name: "get_weather", arguments: { city: "multi\nline" } },
];
const RESULTS = ["{\"temperature\": 21}", "3", "  sunny  ", "no shapes found", "[\"a\", \"b\"]"];

// A turn with tools: the assistant calls 1-2 tools (maybe after some text), the results come
// back as tool messages, and the assistant may answer.
function toolTurn(r, messages) {
  const calls = [];
  for (let k = 0; k < 1 + Math.floor(r() * 2); k++) calls.push(pick(r, CALLS));
  messages.push({ role: "assistant", content: r() < 0.5 ? "" : pick(r, ANSWERS),
                  tool_calls: calls.map((c, k) => ({ id: "call_" + k, type: "function", function: c })) });
  for (let k = 0; k < calls.length; k++) messages.push({ role: "tool", tool_call_id: "call_" + k, content: pick(r, RESULTS) });
}

function conversation(r) {
  const messages = [];
  if (r() < 0.4) {
    const s = pick(r, SYSTEMS);
    messages.push({ role: "system", content: r() < 0.3 ? [{ type: "text", text: s }] : s });
  }
  const with_tools = r() < 0.3;
  const turns = 1 + Math.floor(r() * 4);
  for (let t = 0; t < turns; t++) {
    messages.push(userMessage(r));
    if (with_tools && r() < 0.6) toolTurn(r, messages);
    if (t + 1 < turns || r() < 0.15) messages.push(assistantMessage(r));
  }
  const last = messages[messages.length - 1].role;
  const thinking = pick(r, ["unset", true, false]);
  const tools = with_tools ? TOOLS.slice(0, 1 + Math.floor(r() * TOOLS.length)) : null;
  return { messages, tools, enable_thinking: thinking, add_generation_prompt: last !== "assistant" };
}

// A few shapes the template itself refuses: the product must refuse them too.
function refused(r, k) {
  const user = userMessage(r);
  switch (k % 3) {
    case 0: return { messages: [{ role: "system", content: [{ type: "image" }, { type: "text", text: "x" }] }, user] };
    case 1: return { messages: [user, { role: "system", content: "late system" }] };
    default: return { messages: [{ role: "assistant", content: "no user" }] };
  }
}

const cases = [];
for (const path of templates) {
  const source = readFileSync(path, "utf8");
  const template = new Template(source);
  const r = rng(2026 + cases.length);
  const n = Math.ceil(count / templates.length);
  for (let i = 0; i < n + 6; i++) {
    const c = i < n ? conversation(r) : { ...refused(r, i), enable_thinking: "unset", add_generation_prompt: true };
    // Jinja gets tool-call arguments as mappings (the template iterates them); the file keeps
    // OpenAI's shape, arguments as JSON text, so their order survives any JSON reader.
    const forJinja = c.messages.map((m) => (m.tool_calls
      ? { ...m, tool_calls: m.tool_calls.map((t) => ({ ...t, function: { ...t.function } })) } : m));
    const vars = { messages: forJinja, add_generation_prompt: c.add_generation_prompt, tools: c.tools ?? null };
    if (c.enable_thinking !== "unset") vars.enable_thinking = c.enable_thinking;
    let text = null, error = null;
    try {
      text = template.render(vars);
    } catch (e) {
      error = String(e.message || e);
    }
    const messages = c.messages.map((m) => (m.tool_calls
      ? { ...m, tool_calls: m.tool_calls.map((t) => ({ ...t, function: { name: t.function.name,
          arguments: JSON.stringify(t.function.arguments) } })) } : m));
    const tools_json = c.tools ? c.tools.map((t) => JSON.stringify(t)) : [];
    cases.push({ template: path, ...c, messages, tools: undefined, tools_json, text, error });
  }
}
writeFileSync(out, JSON.stringify({ renderer: "@huggingface/jinja", cases }, null, 1));
const errors = cases.filter((c) => c.error).length;
console.log(`${cases.length} conversations rendered (${errors} refused by the template) -> ${out}`);
