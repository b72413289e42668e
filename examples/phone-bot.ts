/**
 * A phone bot: a media-stream WebSocket (Twilio-style: mu-law 8 kHz, `clear` on barge-in, DTMF) at
 * ws://HOST:PORT/telephony, answered by the support agent. Point your provider's media stream at it;
 * a `traceparent` custom parameter continues the provider's trace.
 *   npx tsx examples/phone-bot.ts [PORT]
 */
import { createServer } from 'node:http';
import { createEmbeddedAgentStack } from 'shoal/agent';
import { TelephonyEndpoint } from 'shoal/transports';
import { createDialogue } from 'shoal/agents';

const port = Number(process.argv[2] ?? 8765);
const stack = await createEmbeddedAgentStack({ mode: 'low-latency', stt: 'engine' });

const endpoint = new TelephonyEndpoint({
  startCall: (transport) => {
    const session = stack.agentFor(createDialogue('support')).handle(transport);
    session.events$.subscribe((event) => {
      if (event.type === 'transcript' && event.final) console.log(`caller: ${event.text}`);
    });
    return { agent: 'support', mode: 'low-latency', stop: () => session.hangup('stream closed') };
  },
  onError: (error) => console.error(error),
});

const server = createServer((_request, response) => response.writeHead(426).end('media streams only\n'));
server.on('upgrade', (request, socket, head) => {
  if (!endpoint.handleUpgrade(request, socket, head)) socket.destroy();
});
server.listen(port, '127.0.0.1', () => console.log(`media stream endpoint on ws://127.0.0.1:${port}/telephony`));
process.on('SIGINT', () => server.close(() => void stack.close().then(() => process.exit(0))));
