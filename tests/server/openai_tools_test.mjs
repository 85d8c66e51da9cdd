// Tool calls through the official `openai` npm client (issue 29): node openai_tools_test.mjs BASE_URL API_KEY
// tiny-a's random weights cannot decide to call a tool, so the answers with calls are scripted
// (glance.forced_answer, teacher forcing); what is tested is the server's shapes as the client
// parses them: message.tool_calls, the streamed deltas (the client's own stream helper puts them
// together), several calls in one answer, a tool result sent back, a bad call as text, and a
// named tool_choice constraining a sampled answer to the call.
import OpenAI from "openai";

const [baseURL, apiKey] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey });
function check(ok, what) {
  if (!ok) {
    console.error("FAILED: " + what);
    process.exit(1);
  }
}
const tools = [
  { type: "function", function: { name: "get_weather", description: "The weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer" } }, required: ["city"] } } },
  { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } },
];
const call = (city, days) => "<tool_call>\n<function=get_weather>\n<parameter=city>\n" + city + "\n</parameter>\n" +
  (days === undefined ? "" : "<parameter=days>\n" + days + "\n</parameter>\n") + "</function>\n</tool_call>";
const script = "Let me look that up.\n\n" + call("Paris") + "\n" + call("Rome", 2);
const question = { role: "user", content: "What is the weather in Paris and in Rome?" };
const ask = (messages, forced, extra = {}) =>
  ({ model: "glance", messages, tools, max_tokens: 8, temperature: 0, glance: { forced_answer: forced }, ...extra });

// Not streamed: two calls, the text before them as content.
const r = await client.chat.completions.create(ask([question], script));
const m = r.choices[0].message;
check(r.choices[0].finish_reason === "tool_calls", "finish_reason " + r.choices[0].finish_reason);
check(m.content === "Let me look that up.", "content " + JSON.stringify(m.content));
check(m.tool_calls?.length === 2, "two calls: " + JSON.stringify(m.tool_calls));
check(m.tool_calls.every((c) => c.type === "function" && c.id.startsWith("call_")), "call ids and types");
check(m.tool_calls[0].id !== m.tool_calls[1].id, "distinct ids");
check(JSON.stringify(JSON.parse(m.tool_calls[0].function.arguments)) === '{"city":"Paris"}', "arguments 0");
check(JSON.stringify(JSON.parse(m.tool_calls[1].function.arguments)) === '{"city":"Rome","days":2}', "arguments 1");

// Streamed, put together by the client's stream helper: the same calls, no call text in the content.
const stream = client.beta.chat.completions.stream(ask([question], script));
let streamedText = "";
stream.on("content", (delta) => { streamedText += delta; });
const final = await stream.finalChatCompletion();
const sm = final.choices[0].message;
check(final.choices[0].finish_reason === "tool_calls", "streamed finish_reason " + final.choices[0].finish_reason);
check(streamedText === "Let me look that up.", "streamed content " + JSON.stringify(streamedText));
check(sm.tool_calls?.length === 2 && sm.tool_calls[1].function.name === "get_weather", "streamed calls " + JSON.stringify(sm.tool_calls));
check(JSON.stringify(JSON.parse(sm.tool_calls[1].function.arguments)) === '{"city":"Rome","days":2}', "streamed arguments");
// The raw chunks: a first delta per call with index, id, type and name; arguments in pieces.
const raw = await client.chat.completions.create({ ...ask([question], script), stream: true });
const firsts = [], pieces = [];
for await (const chunk of raw)
  for (const c of chunk.choices[0]?.delta?.tool_calls ?? []) (c.id ? firsts : pieces).push(c);
check(firsts.length === 2 && firsts.map((c) => c.index).join() === "0,1" && firsts.every((c) => c.type === "function" && c.function.name === "get_weather"),
      "first deltas " + JSON.stringify(firsts));
check(pieces.length >= 3 && pieces.every((c) => typeof c.function.arguments === "string"), "argument pieces " + pieces.length);

// The tool results sent back: the held conversation continues and the answer is text.
const results = [question, m,
  { role: "tool", tool_call_id: m.tool_calls[0].id, content: "21 C, sunny" },
  { role: "tool", tool_call_id: m.tool_calls[1].id, content: "25 C, clear" }];
const answer = await client.chat.completions.create(ask(results, "Paris: 21 C. Rome: 25 C."));
check(answer.choices[0].finish_reason === "stop" && answer.choices[0].message.content === "Paris: 21 C. Rome: 25 C.",
      "answer after the results " + JSON.stringify(answer.choices[0]));
check(answer.choices[0].message.tool_calls === undefined, "no calls in the final answer");
check(answer.glance.reused_prompt_tokens > 100, "the held conversation was continued: " + answer.glance.reused_prompt_tokens);

// A call written badly (a function the request does not offer) is text, streamed or not.
const bad = "<tool_call>\n<function=launch_rockets>\n</function>\n</tool_call>";
const b = await client.chat.completions.create(ask([question], bad));
check(b.choices[0].finish_reason === "stop" && b.choices[0].message.content === bad && !b.choices[0].message.tool_calls,
      "bad call as text " + JSON.stringify(b.choices[0]));
const bs = client.beta.chat.completions.stream(ask([question], bad));
const bfinal = await bs.finalChatCompletion();
check(bfinal.choices[0].message.content === bad && !(bfinal.choices[0].message.tool_calls?.length), "streamed bad call as text");

// A named tool_choice, sampled (no script): the constraint makes the answer that call.
for (const seed of [1, 2]) {
  const n = await client.chat.completions.create({ model: "glance", messages: [question], tools, max_tokens: 64, temperature: 1, seed,
                                                   tool_choice: { type: "function", function: { name: "ping" } } });
  const c = n.choices[0];
  check(c.finish_reason === "tool_calls" && c.message.tool_calls?.length === 1 && c.message.tool_calls[0].function.name === "ping" &&
        c.message.tool_calls[0].function.arguments === "{}", "named choice " + JSON.stringify(c));
}
// A named choice outside the tools is a 400 naming the field.
try {
  await client.chat.completions.create({ model: "glance", messages: [question], tools, tool_choice: { type: "function", function: { name: "nope" } } });
  check(false, "a named choice outside the tools was accepted");
} catch (e) {
  check(e.status === 400 && e.param === "tool_choice.function.name", "400 for the named choice: " + e.status + " " + e.param);
}
// /v1/responses: function tools; calls come back as function_call output items; the results go
// back as function_call_output items, by previous_response_id or with the whole conversation.
const rtools = tools.map((t) => ({ type: "function", ...t.function }));
const rask = (input, forced, extra = {}) =>
  ({ model: "glance", input, tools: rtools, max_output_tokens: 8, temperature: 0, glance: { forced_answer: forced }, ...extra });
const rr = await client.responses.create(rask(question.content, script));
const fcs = rr.output.filter((o) => o.type === "function_call");
check(rr.status === "completed" && rr.output_text === "Let me look that up.", "responses text " + JSON.stringify(rr.output));
check(fcs.length === 2 && fcs.every((f) => f.call_id.startsWith("call_") && f.id.startsWith("fc_") && f.name === "get_weather" &&
      f.status === "completed") && JSON.parse(fcs[1].arguments).days === 2, "responses function_call items " + JSON.stringify(fcs));
const outputs = fcs.map((f, k) => ({ type: "function_call_output", call_id: f.call_id, output: k ? "25 C" : "21 C" }));
const rr2 = await client.responses.create({ ...rask(outputs, "Paris: 21 C. Rome: 25 C."), previous_response_id: rr.id });
check(rr2.output_text === "Paris: 21 C. Rome: 25 C." && rr2.usage.input_tokens_details.cached_tokens > 100,
      "responses after function_call_output " + JSON.stringify({ text: rr2.output_text, usage: rr2.usage }));
const rr3 = await client.responses.create(rask([question, ...rr.output, ...outputs], "Paris: 21 C. Rome: 25 C."));
check(rr3.output_text === "Paris: 21 C. Rome: 25 C.", "responses with the whole conversation as items " + rr3.output_text);
// Streamed: an item per call, its arguments in deltas, done events, the final response.
const rs = await client.responses.create({ ...rask(question.content, call("Paris")), stream: true });
const events = [];
for await (const e of rs) events.push(e);
const added = events.filter((e) => e.type === "response.output_item.added");
const argDeltas = events.filter((e) => e.type === "response.function_call_arguments.delta").map((e) => e.delta).join("");
const argDone = events.find((e) => e.type === "response.function_call_arguments.done");
const completed = events.at(-1);
check(added.length === 1 && added[0].item.type === "function_call" && added[0].output_index === 0, "streamed items " + JSON.stringify(added));
check(argDeltas === '{"city":"Paris"}' && argDone?.arguments === argDeltas, "streamed arguments " + argDeltas);
check(completed.type === "response.completed" && completed.response.output.length === 1 &&
      completed.response.output[0].call_id === added[0].item.call_id, "streamed completed " + JSON.stringify(completed.response.output));
console.log("openai tools test passed");
