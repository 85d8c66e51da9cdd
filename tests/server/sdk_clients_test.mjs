// The Vercel AI SDK and LangChain against glance-cli serve (issue 29): structured outputs,
// plain/streamed text, and tool calls (generateText with a tool(), a two-step tool loop;
// LangChain's bindTools). node sdk_clients_test.mjs BASE_URL API_KEY
// The answers with calls are scripted with the server's glance.forced_answer (teacher forcing):
// tiny-a's random weights cannot decide to call a tool; the libraries' own parsing is tested.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, generateText, stepCountIs, streamText, tool } from "ai";
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
// Tool calls. The call the scripted answer makes, in the template's format.
const call = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>";
const forced = (text) => ({ glance: { glance: { forced_answer: text } } });
const get_weather = tool({ description: "The weather in a city", inputSchema: z.object({ city: z.string() }),
                           execute: async ({ city }) => `${city}: 21 C` });
const one = await generateText({ model, prompt: "Weather in Paris?", tools: { get_weather }, maxOutputTokens: 8, temperature: 0,
                                 providerOptions: forced("Checking.\n\n" + call) });
check(one.finishReason === "tool-calls", "ai generateText tool finishReason " + one.finishReason);
check(one.toolCalls.length === 1 && one.toolCalls[0].toolName === "get_weather" && one.toolCalls[0].input?.city === "Paris",
      "ai generateText toolCalls " + JSON.stringify(one.toolCalls));
check(one.toolResults.length === 1 && one.toolResults[0].output === "Paris: 21 C", "ai tool executed " + JSON.stringify(one.toolResults));
// A two-step loop: the SDK sends the call and its result back (assistant tool_calls, role tool),
// the server renders them and the scripted second answer is the text.
const loop = await generateText({
  model, prompt: "Weather in Paris?", tools: { get_weather }, maxOutputTokens: 8, temperature: 0, stopWhen: stepCountIs(2),
  prepareStep: async ({ stepNumber }) => ({ providerOptions: forced(stepNumber === 0 ? call : "It is 21 C in Paris.") }),
});
check(loop.steps.length === 2 && loop.steps[0].toolCalls.length === 1 && loop.text === "It is 21 C in Paris." &&
      loop.finishReason === "stop", "ai two-step tool loop " + JSON.stringify({ steps: loop.steps.length, text: loop.text }));
// streamText sees the same call through the streamed deltas.
const st = streamText({ model, prompt: "Weather in Paris?", tools: { get_weather }, maxOutputTokens: 8, temperature: 0,
                        providerOptions: forced("Checking.\n\n" + call) });
const stCalls = await st.toolCalls;
check(stCalls.length === 1 && stCalls[0].input?.city === "Paris" && (await st.text) === "Checking.",
      "ai streamText toolCalls " + JSON.stringify(stCalls));

// LangChain: bindTools parses the calls into AIMessage.tool_calls; a bad call stays text.
const weatherTool = { type: "function", function: { name: "get_weather", description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } };
const lc = (text) => new ChatOpenAI({ model: "glance", apiKey, configuration: { baseURL }, maxTokens: 8, temperature: 0,
                                      modelKwargs: { glance: { forced_answer: text } } }).bindTools([weatherTool]);
const msg = await lc(call).invoke("Weather in Paris?");
check(msg.tool_calls?.length === 1 && msg.tool_calls[0].name === "get_weather" && msg.tool_calls[0].args.city === "Paris" &&
      msg.tool_calls[0].id?.startsWith("call_"), "langchain bindTools " + JSON.stringify(msg.tool_calls));
const badCall = "<tool_call>\n<function=launch_rockets>\n</function>\n</tool_call>";
const badMsg = await lc(badCall).invoke("Weather in Paris?");
check(!badMsg.tool_calls?.length && badMsg.content === badCall, "langchain bad call as text " + JSON.stringify(badMsg.content));
console.log("sdk clients test passed");
