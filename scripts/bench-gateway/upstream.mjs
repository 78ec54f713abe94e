// Anthropic stand-in for scripts/bench-gateway.sh and scripts/bench-gateway-open-loop.sh: POST /v1/messages
// answers a streaming call with message_start, 50 text deltas, message_delta and message_stop, and a
// non-streaming call with one JSON message. Usage is in both, so the gateway meters and bills as for the
// real API. Prints "READY <port>" once listening.
//   node upstream.mjs [port (0: any)] [ms between deltas (0)]
// With 0 ms (the closed-loop bench) a stream is one write: the events arrive together, as a fast
// upstream's would. With N ms (the open-loop bench) the deltas leave N ms apart, as a model's tokens do,
// and each delta's text is "@<send time> ": the monotonic clock in microseconds taken just before its
// write (process.hrtime, the same clock in every process on this machine), so a client can tell each
// event's delay from send to receipt.
import http from "node:http";

const deltas = 50;
const pace = Number(process.argv[3] ?? 0);
const model = "claude-sonnet-4-5-20250929";
const usage = '{"input_tokens":420,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}';
const event = (type, data) => `event: ${type}\ndata: ${data}\n\n`;
const delta = (text) => event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${text}"}}`);
const head =
  event("message_start", `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":"${model}","content":[],"stop_reason":null,"stop_sequence":null,"usage":${usage}}}`) +
  event("content_block_start", '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}');
const tail =
  event("content_block_stop", '{"type":"content_block_stop","index":0}') +
  event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${deltas}}}`) +
  event("message_stop", '{"type":"message_stop"}');
const stream = head + delta("token ").repeat(deltas) + tail;
const json = `{"id":"msg_bench","type":"message","role":"assistant","model":"${model}","content":[{"type":"text","text":"${"token ".repeat(deltas)}"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":420,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":${deltas}}}`;

const micros = () => process.hrtime.bigint() / 1000n;

// One timer per stream: Node keeps timers of the same duration in one list under one OS timer, so a
// thousand streams cost a thousand list entries, not a thousand wake-ups apart.
function paced(res) {
  res.write(head);
  let sent = 0;
  const timer = setInterval(() => {
    sent++;
    const event = delta(`@${micros()} `);
    if (sent < deltas) {
      res.write(event);
    } else {
      clearInterval(timer);
      res.end(event + tail);
    }
  }, pace);
  res.on("close", () => clearInterval(timer));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    if (req.method !== "POST" || !req.url.startsWith("/v1/messages")) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"type":"error"}');
      return;
    }
    // Streaming unless the body says "stream":false (cheap check; the bench sends either form verbatim).
    const streaming = !Buffer.concat(chunks).includes('"stream":false');
    if (streaming) {
      res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_bench" });
      if (pace > 0) paced(res);
      else res.end(stream);
    } else {
      res.writeHead(200, { "content-type": "application/json", "request-id": "req_bench" });
      res.end(json);
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => console.log(`READY ${server.address().port}`));
