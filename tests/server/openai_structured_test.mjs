// Structured outputs and logprobs through the official `openai` npm client (issue 29):
// node openai_structured_test.mjs BASE_URL API_KEY
// The model is tiny-a's random weights: only the constraint makes its answers JSON.
import OpenAI from "openai";

const [baseURL, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey });
const messages = [{ role: "user", content: "Describe the shape as JSON." }];
function check(ok, what) {
  if (!ok) {
    console.error("FAILED: " + what);
    process.exit(1);
  }
}

const schema = {
  type: "object",
  properties: {
    shape: { enum: ["circle", "square", "star"] },
    count: { type: "integer" },
    filled: { type: "boolean" },
    tags: { type: "array", items: { enum: ["red", "big"] }, maxItems: 3 },
  },
  required: ["shape", "count", "filled", "tags"],
  additionalProperties: false,
};
function checkShape(o, what) {
  check(o && typeof o === "object" && !Array.isArray(o), what + ": not an object");
  check(JSON.stringify(Object.keys(o)) === '["shape","count","filled","tags"]', what + ": keys " + Object.keys(o));
  check(["circle", "square", "star"].includes(o.shape), what + ": shape " + o.shape);
  check(Number.isInteger(o.count), what + ": count " + o.count);
  check(typeof o.filled === "boolean", what + ": filled");
  check(Array.isArray(o.tags) && o.tags.length <= 3 && o.tags.every((t) => t === "red" || t === "big"), what + ": tags");
}
const json_schema = { name: "shape", strict: true, schema };

// json_schema, parsed by the client's own helper (it JSON.parses the content).
for (const seed of [1, 2, 3]) {
  const r = await client.beta.chat.completions.parse({
    model: "glance", messages, max_tokens: 400, temperature: 1, seed,
    response_format: { type: "json_schema", json_schema },
  });
  check(r.choices[0].finish_reason === "stop", "json_schema finish_reason " + r.choices[0].finish_reason);
  checkShape(r.choices[0].message.parsed, "json_schema seed " + seed);
}

// json_schema streamed: the deltas put together are the document.
{
  const stream = await client.chat.completions.create({
    model: "glance", messages, max_tokens: 400, temperature: 1, seed: 4, stream: true,
    response_format: { type: "json_schema", json_schema },
  });
  let text = "", finish = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? "";
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  check(finish === "stop", "streamed json_schema finish_reason " + finish);
  checkShape(JSON.parse(text), "streamed json_schema");
}

// json_object: any object. A random model's objects may nest past max_tokens; those that
// finish must parse as objects. About a third of the seeds finish within 600 tokens (13 of 40
// measured): 24 seeds, so a change of the engine's rounding that reshuffles which ones finish
// cannot leave none by chance (2/3^24 < 1e-4), where 6 seeds did 1 time in 11.
{
  let finished = 0;
  for (const seed of Array.from({ length: 24 }, (_, i) => i + 1)) {
    const r = await client.chat.completions.create({
      model: "glance", messages, max_tokens: 600, temperature: 1, seed, response_format: { type: "json_object" },
    });
    if (r.choices[0].finish_reason !== "stop") continue;
    const o = JSON.parse(r.choices[0].message.content);
    check(o && typeof o === "object" && !Array.isArray(o), "json_object answer is not an object");
    ++finished;
  }
  check(finished >= 1, "no json_object answer finished within 600 tokens in 6 tries");
}

// String rules: a pattern and a format are enforced (checked here with the JS RegExp and Date).
{
  const ruled = {
    type: "object",
    properties: { code: { type: "string", pattern: "^[A-Z]{2}-\\d{2}$" }, day: { type: "string", format: "date" },
                  note: { type: "string", maxLength: 6 } },
    required: ["code", "day", "note"],
    additionalProperties: false,
  };
  const r = await client.chat.completions.create({
    model: "glance", messages, max_tokens: 200, temperature: 1, seed: 9,
    response_format: { type: "json_schema", json_schema: { name: "ruled", strict: true, schema: ruled } },
  });
  check(r.choices[0].finish_reason === "stop", "pattern answer finish_reason " + r.choices[0].finish_reason);
  const o = JSON.parse(r.choices[0].message.content);
  check(/^[A-Z]{2}-\d{2}$/u.test(o.code), "pattern not met: " + o.code);
  const d = new Date(o.day + "T00:00:00Z");
  check(/^\d{4}-\d{2}-\d{2}$/.test(o.day) && !isNaN(d) && d.toISOString().slice(0, 10) === o.day, "not a date: " + o.day);
  check([...o.note].length <= 6, "maxLength not met: " + o.note);
}

// A schema keyword or regex feature the grammar cannot enforce is a 400 naming it.
try {
  await client.chat.completions.create({
    model: "glance", messages, max_tokens: 10,
    response_format: { type: "json_schema", json_schema: { name: "x", schema: { type: "string", pattern: "^(?=a)" } } },
  });
  check(false, "a pattern with a lookahead was accepted");
} catch (e) {
  check(e.status === 400 && String(e.message).includes("pattern") && String(e.message).includes("lookahead"),
        "lookahead refused with " + e.status + " " + e.message);
}

// logprobs: one entry per generated token, the top alternatives most likely first.
function checkLogprobs(content, n, what) {
  check(Array.isArray(content) && content.length === n, `${what}: ${content?.length} entries for ${n} tokens`);
  for (const e of content) {
    check(typeof e.token === "string" && Array.isArray(e.bytes) && e.logprob <= 0, what + ": entry " + JSON.stringify(e));
    check(e.top_logprobs.length === 3, what + ": top_logprobs length " + e.top_logprobs.length);
    for (let k = 1; k < 3; ++k) check(e.top_logprobs[k - 1].logprob >= e.top_logprobs[k].logprob, what + ": top order");
    check(e.top_logprobs[0].logprob >= e.logprob - 1e-6, what + ": the best alternative is below the chosen token");
  }
}
{
  const r = await client.chat.completions.create({ model: "glance", messages, max_tokens: 8, temperature: 0, logprobs: true, top_logprobs: 3 });
  checkLogprobs(r.choices[0].logprobs?.content, r.usage.completion_tokens, "logprobs");
  // Greedy: the chosen token is the likeliest.
  for (const e of r.choices[0].logprobs.content) check(Math.abs(e.top_logprobs[0].logprob - e.logprob) < 1e-6, "greedy chose the top token");
  const s = await client.chat.completions.create({
    model: "glance", messages, max_tokens: 8, temperature: 0, logprobs: true, top_logprobs: 3, stream: true,
    stream_options: { include_usage: true },
  });
  const content = [];
  let usage = null;
  for await (const chunk of s) {
    for (const e of chunk.choices[0]?.logprobs?.content ?? []) content.push(e);
    usage = chunk.usage ?? usage;
  }
  checkLogprobs(content, usage.completion_tokens, "streamed logprobs");
  check(JSON.stringify(content) === JSON.stringify(r.choices[0].logprobs.content), "streamed logprobs differ from the plain answer's");
  const plain = await client.chat.completions.create({ model: "glance", messages, max_tokens: 4 });
  check(plain.choices[0].logprobs === null, "logprobs not asked for but sent");
}
console.log("openai structured outputs test passed");
