// The Vercel AI SDK and LangChain against glance-cli serve (issue 29): structured outputs and
// plain/streamed text. node sdk_clients_test.mjs BASE_URL API_KEY
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, generateText, streamText } from "ai";
import { z } from "zod";
import { ChatOpenAI } from "@langchain/openai";

globalThis.AI_SDK_LOG_WARNINGS = false;  // generateObject is deprecated in ai 7 but still what the issue names

const [baseURL, apiKey] = process.argv.slice(2);
function check(ok, what) {
  if (!ok) {
    console.error("FAILED: " + what);
    process.exit(1);
  }
}
// count: zod's .int() adds the safe-integer bounds as minimum/maximum, which the server takes.
const shape = z.object({ shape: z.enum(["circle", "square", "star"]), filled: z.boolean(), size: z.number(),
                         count: z.number().int() });
function checkShape(o, what) {
  check(o && ["circle", "square", "star"].includes(o.shape) && typeof o.filled === "boolean" && typeof o.size === "number" &&
        Number.isInteger(o.count),
        what + ": " + JSON.stringify(o));
}

// Vercel AI SDK, through its OpenAI-compatible provider.
const provider = createOpenAICompatible({ name: "glance", baseURL, apiKey, supportsStructuredOutputs: true });
const model = provider.chatModel("glance");
for (const seed of [1, 2]) {
  const { object } = await generateObject({ model, schema: shape, prompt: "Describe the shape as JSON.", maxOutputTokens: 400, temperature: 1, seed });
  checkShape(object, "ai generateObject");
}
const g = await generateText({ model, prompt: "Say something.", maxOutputTokens: 6, temperature: 0 });
check(typeof g.text === "string" && g.text.length > 0 && g.usage.outputTokens === 6, "ai generateText " + JSON.stringify(g.usage));
const s = streamText({ model, prompt: "Say something.", maxOutputTokens: 6, temperature: 0 });
let streamed = "";
for await (const piece of s.textStream) streamed += piece;
check(streamed === g.text, `ai streamText differs from generateText: ${JSON.stringify(streamed)} vs ${JSON.stringify(g.text)}`);

// LangChain: withStructuredOutput by JSON schema (response_format), and a plain invoke.
const llm = new ChatOpenAI({ model: "glance", apiKey, configuration: { baseURL }, maxTokens: 400, temperature: 1 });
for (let i = 0; i < 2; ++i) {
  const out = await llm.withStructuredOutput(shape, { method: "jsonSchema", name: "shape" }).invoke("Describe the shape as JSON.");
  checkShape(out, "langchain withStructuredOutput");
}
const plain = await new ChatOpenAI({ model: "glance", apiKey, configuration: { baseURL }, maxTokens: 5, temperature: 0 }).invoke("Hi");
check(typeof plain.content === "string" && plain.content.length > 0, "langchain invoke");
console.log("sdk clients test passed");
