// POST /v1/responses through the official `openai` npm client (issue 29):
// node openai_responses_test.mjs BASE_URL API_KEY IMAGE.png
// The model is tiny-a's random weights: it never stops early, so answers end at
// max_output_tokens ("incomplete") unless a schema ends them.
import fs from "node:fs";
import OpenAI from "openai";

const [baseURL, apiKey, imagePath] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey });
const model = "glance";
function check(ok, what) {
  if (!ok) {
    console.error("FAILED: " + what);
    process.exit(1);
  }
}
async function refused(params, status, words, what) {
  try {
    await client.responses.create(params);
    check(false, what + ": accepted");
  } catch (e) {
    check(e.status === status && String(e.message).includes(words), `${what}: ${e.status} ${e.message}`);
  }
}

// Plain: a string input.
const r1 = await client.responses.create({ model, input: "Say something.", max_output_tokens: 8, temperature: 0 });
check(r1.object === "response" && r1.id.startsWith("resp_"), "response object " + JSON.stringify(r1).slice(0, 200));
check(r1.status === "incomplete" && r1.incomplete_details?.reason === "max_output_tokens", "status " + r1.status);
check(typeof r1.output_text === "string" && r1.output_text.length > 0, "output_text");
check(r1.output[0].type === "message" && r1.output[0].role === "assistant", "output item");
check(r1.usage.output_tokens === 8 && r1.usage.input_tokens > 0, "usage " + JSON.stringify(r1.usage));

// Instructions and an image, then a follow-up by previous_response_id.
const image = "data:image/png;base64," + fs.readFileSync(imagePath).toString("base64");
const r2 = await client.responses.create({
  model, instructions: "Be brief.", max_output_tokens: 6,
  input: [{ role: "user", content: [{ type: "input_text", text: "What is this?" }, { type: "input_image", image_url: image }] }],
});
check(r2.instructions === "Be brief." && r2.usage.input_tokens > 49, "image input usage " + JSON.stringify(r2.usage));
const r3 = await client.responses.create({ model, previous_response_id: r2.id, input: "And its colour?", max_output_tokens: 4 });
check(r3.previous_response_id === r2.id, "previous_response_id echoed");
// The whole earlier conversation (image included) is in the prompt, and reused from the held state.
check(r3.usage.input_tokens > r2.usage.input_tokens + 3, `follow-up prompt ${r3.usage.input_tokens} vs ${r2.usage.input_tokens}`);
check(r3.usage.input_tokens_details.cached_tokens > 49, "held conversation reused: " + JSON.stringify(r3.usage));
await refused({ model, previous_response_id: "resp_gone", input: "x" }, 404, "resp_gone", "an unknown previous_response_id");

// Streamed: the standard event sequence, deltas adding up to the final text.
const s = await client.responses.create({ model, input: "Hi", max_output_tokens: 5, stream: true });
const types = [];
let text = "", last = null;
for await (const e of s) {
  types.push(e.type);
  if (e.type === "response.output_text.delta") text += e.delta;
  if (e.response) last = e.response;
}
const want = ["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"];
check(JSON.stringify(types.slice(0, 4)) === JSON.stringify(want), "first events " + types.slice(0, 4));
check(JSON.stringify(types.slice(-4)) === JSON.stringify(["response.output_text.done", "response.content_part.done",
  "response.output_item.done", "response.incomplete"]), "last events " + types.slice(-4));
check(types.filter((t) => t === "response.output_text.delta").length >= 1, "no deltas");
check(last.output[0].content[0].text === text && text.length > 0, "streamed text differs from the final response's");

// text.format json_schema: a document of the schema.
const schema = {
  type: "object", properties: { shape: { enum: ["circle", "star"] }, n: { type: "integer" } },
  required: ["shape", "n"], additionalProperties: false,
};
const j = await client.responses.create({
  model, input: "JSON please.", max_output_tokens: 300, temperature: 1,
  text: { format: { type: "json_schema", name: "shape", strict: true, schema } },
});
check(j.status === "completed", "json_schema status " + j.status);
const doc = JSON.parse(j.output_text);
check(JSON.stringify(Object.keys(doc)) === '["shape","n"]' && ["circle", "star"].includes(doc.shape) && Number.isInteger(doc.n),
      "json_schema document " + j.output_text);
check(j.text.format.type === "json_schema", "text.format echoed");
await refused({ model, input: "x", text: { format: { type: "json_schema", name: "s", schema: { type: "string", format: "uri" } } } },
              400, "format", "an unsupported schema keyword");
await refused({ model, input: "x", tools: [{ type: "web_search_preview" }] }, 400, "not supported (function)",
              "a tool type other than function");
console.log("openai responses test passed");
