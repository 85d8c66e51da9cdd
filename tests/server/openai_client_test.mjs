// The official OpenAI Node client against `glance-cli serve` (issue 15): a chat with an image,
// usage counts, a continued conversation, streaming (same text as without), cancelling a stream
// mid-way (the server is free again at once), and API errors arriving as APIError with their
// status. Usage: node openai_client_test.mjs BASE_URL API_KEY IMAGE.png
import OpenAI from 'openai';
import fs from 'node:fs';
import assert from 'node:assert/strict';

const [baseURL, apiKey, imagePath] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 120000 });
const image = `data:image/png;base64,${fs.readFileSync(imagePath).toString('base64')}`;
const question = {
  role: 'user',
  content: [
    { type: 'image_url', image_url: { url: image } },
    { type: 'text', text: 'Describe this image.' },
  ],
};

const models = await client.models.list();
assert.equal(models.data.length, 1);
const model = models.data[0].id;

// 1. A chat with an image; usage counts.
const first = await client.chat.completions.create({ model, messages: [question], max_tokens: 8, temperature: 0 });
const text = first.choices[0].message.content;
assert.equal(typeof text, 'string');
assert.ok(first.usage.prompt_tokens > 49, `prompt_tokens ${first.usage.prompt_tokens} should count the 49 image tokens`);
assert.ok(first.usage.completion_tokens >= 1 && first.usage.completion_tokens <= 8);
assert.equal(first.usage.total_tokens, first.usage.prompt_tokens + first.usage.completion_tokens);
assert.ok(['stop', 'length'].includes(first.choices[0].finish_reason));
assert.ok(first.glance.timing.prefill_s >= 0, 'the glance extension carries timing');

// 2. The conversation continues from the server's held state: the history is not prefilled again.
const second = await client.chat.completions.create({
  model, max_tokens: 4, temperature: 0,
  messages: [question, { role: 'assistant', content: text }, { role: 'user', content: 'Say more.' }],
});
assert.ok(second.glance.reused_prompt_tokens > 49,
  `reused ${second.glance.reused_prompt_tokens} of ${second.usage.prompt_tokens}`);

// 3. Streaming gives the same greedy text, then usage.
const stream = await client.chat.completions.create({
  model, messages: [question], max_tokens: 8, temperature: 0, stream: true, stream_options: { include_usage: true },
});
let streamed = '', usage = null, finish = null;
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage;
  const choice = chunk.choices[0];
  if (!choice) continue;
  streamed += choice.delta.content ?? '';
  if (choice.finish_reason) finish = choice.finish_reason;
}
assert.equal(streamed, text);
assert.ok(finish === 'stop' || finish === 'length');
assert.deepEqual(usage, first.usage);

// 4. Cancel mid-stream: the server stops that generation, so the next request is not kept
// waiting behind the rest of it.
const long = await client.chat.completions.create({
  model, messages: [{ role: 'user', content: 'Write a long story.' }], max_tokens: 4000, temperature: 0, stream: true,
});
let chunks = 0;
for await (const chunk of long) {
  if (++chunks === 5) { long.controller.abort(); break; }
}
const t0 = Date.now();
const after = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 2 });
const waited = after.glance.queue_s;
console.log(`after cancel: queued ${waited.toFixed(3)} s, answered in ${((Date.now() - t0) / 1000).toFixed(3)} s`);
assert.ok(waited < 1.0, `the cancelled stream kept the engine for ${waited} s`);

// 5. Errors arrive as APIError with the HTTP status.
await assert.rejects(
  client.chat.completions.create({ model, messages: [{ role: 'user', content: [
    { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }),
  (e) => e instanceof OpenAI.APIError && e.status === 400 && /remote image URLs/.test(e.message));
const wrongKey = new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 });
await assert.rejects(wrongKey.models.list(), (e) => e.status === 401);
console.log('openai client test passed');
