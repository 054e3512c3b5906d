// A minimal OpenAI-compatible chat server over node-llama-cpp (llama.cpp's prebuilt binaries from npm), for
// bench/local_llm.py. It serves POST /v1/chat/completions (streamed or whole) one request at a time, like
// llama.cpp's server with one slot: it honours max_tokens (finish_reason "length"), response_format json_object
// (a JSON grammar) and a client that hangs up (generation stops). Not part of the product.
//
//   NODE_PATH=<dir>/node_modules node bench/local_llm_server.mjs MODEL.gguf PORT [CONTEXT_SIZE] [THREADS]
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(path.join(process.env.NODE_PATH || process.cwd(), "noop.js"));
const { getLlama, LlamaChatSession } = await import(require.resolve("node-llama-cpp"));

const [modelPath, port = "8765", contextSize = "4096", threads = "0"] = process.argv.slice(2);
const llama = await getLlama({ gpu: false, build: "never" });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: Number(contextSize), threads: Number(threads) || undefined });
const sequence = context.getSequence();
const jsonGrammar = await llama.getGrammarFor("json");
const modelName = path.basename(modelPath);
let queue = Promise.resolve();

function history(messages) {
  const items = [];
  for (const m of messages.slice(0, -1)) {
    const text = typeof m.content === "string" ? m.content : (m.content || []).map((p) => p.text || "").join("");
    if (m.role === "system" || m.role === "developer") items.push({ type: "system", text });
    else if (m.role === "assistant") items.push({ type: "model", response: [text] });
    else items.push({ type: "user", text });
  }
  const last = messages[messages.length - 1] || { content: "" };
  return [items, typeof last.content === "string" ? last.content : ""];
}

function chunk(id, delta, finish) {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000),
    model: modelName, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

async function complete(body, req, res) {
  const id = `chatcmpl-${Date.now()}`;
  const abort = new AbortController();
  res.on("close", () => { if (!res.writableEnded) abort.abort(); });
  const [items, prompt] = history(body.messages || []);
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
  session.setChatHistory(items);
  const stream = Boolean(body.stream);
  if (stream) {
    res.writeHead(200, { "Content-Type": "text/event-stream" });
    res.write(chunk(id, { role: "assistant", content: "" }, null));
  }
  const started = Date.now();
  let meta;
  try {
    meta = await session.promptWithMeta(prompt, {
      maxTokens: body.max_tokens || body.max_completion_tokens || undefined,
      temperature: body.temperature ?? 0,
      grammar: body.response_format?.type === "json_object" ? jsonGrammar : undefined,
      signal: abort.signal,
      stopOnAbortSignal: true,
      onTextChunk: stream ? (text) => res.write(chunk(id, { content: text }, null)) : undefined,
    });
  } finally {
    session.dispose({ disposeSequence: false });
    await sequence.clearHistory();
  }
  if (abort.signal.aborted) return;
  const finish = meta.stopReason === "maxTokens" ? "length" : "stop";
  process.stderr.write(`${body.stream ? "stream" : "whole"} ${finish} ${Date.now() - started} ms\n`);
  if (stream) {
    res.end(chunk(id, {}, finish) + "data: [DONE]\n\n");
  } else {
    const payload = JSON.stringify({ id, object: "chat.completion", created: Math.floor(started / 1000),
      model: modelName, choices: [{ index: 0, message: { role: "assistant", content: meta.responseText },
        finish_reason: finish }] });
    res.writeHead(200, { "Content-Type": "application/json" }).end(payload);
  }
}

http.createServer((req, res) => {
  if (req.method === "GET" && req.url.endsWith("/models")) {
    res.writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ object: "list", data: [{ id: modelName, object: "model" }] }));
    return;
  }
  if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
    res.writeHead(404, { "Content-Type": "application/json" }).end('{"error": {"message": "not found"}}');
    return;
  }
  let raw = "";
  req.on("data", (d) => { raw += d; });
  req.on("end", () => {
    let body;
    try { body = JSON.parse(raw); } catch {
      res.writeHead(400, { "Content-Type": "application/json" }).end('{"error": {"message": "bad JSON"}}');
      return;
    }
    // One slot: requests wait their turn, as on llama.cpp's server with --parallel 1.
    queue = queue.then(() => complete(body, req, res)).catch((err) => {
      process.stderr.write(`error: ${err?.stack || err}\n`);
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ error: { message: String(err?.message || err) } }));
    });
  });
}).listen(Number(port), "127.0.0.1", () => process.stderr.write(`listening on 127.0.0.1:${port}\n`));
