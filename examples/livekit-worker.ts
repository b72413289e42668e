/**
 * A LiveKit agent worker in a few lines: registers with LiveKit's agent dispatch as "support", takes up to
 * 8 calls at once in this process, answers each with the scripted support agent, transfers phone callers
 * who ask for a human, and drains on Ctrl-C / SIGTERM. (`shoal livekit` is the same, with flags.)
 *   livekit-server --dev &
 *   LIVEKIT_URL=ws://localhost:7880 LIVEKIT_API_KEY=devkey LIVEKIT_API_SECRET=secret npx tsx examples/livekit-worker.ts
 * Then dispatch it into a room: `lk dispatch create --room my-room --agent-name support`, and join the room.
 */
import { createEmbeddedAgentStack } from 'shoal/agent';
import { CallControl, callJobRunner, LiveKitWorker } from 'shoal/transports';
import { createDialogue } from 'shoal/agents';

const { LIVEKIT_URL: url, LIVEKIT_API_KEY: apiKey, LIVEKIT_API_SECRET: apiSecret } = process.env;
if (!url || !apiKey || !apiSecret) {
  console.error('Set LIVEKIT_URL, LIVEKIT_API_KEY and LIVEKIT_API_SECRET (e.g. livekit-server --dev: ws://localhost:7880, devkey, secret).');
  process.exit(2);
}

const stack = await createEmbeddedAgentStack({ mode: 'low-latency' });
const worker = new LiveKitWorker({
  url,
  apiKey,
  apiSecret,
  agentName: 'support',
  capacity: 8,
  runJob: callJobRunner({
    agent: () => stack.agentFor(createDialogue('support')), // a fresh dialogue per call
    control: CallControl.forServer({ url, apiKey, apiSecret }, { transferTargets: { 'human agent': 'tel:+15550100' } }),
    onCall: ({ job, caller, session }) => {
      console.log(`job ${job.id}: talking with ${caller.identity} (${caller.kind})`);
      session.events$.subscribe((event) => event.type === 'turn-metrics' && console.log(`  ${event.report.user_text} → ${event.report.agent_text}`));
    },
  }),
});
worker.events$.subscribe((event) => console.log(JSON.stringify(event)));
await worker.start();
console.log(`registered as worker ${worker.workerId}; waiting for jobs (Ctrl-C drains and exits)`);
await new Promise((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
console.log(await worker.drain(30_000));
await stack.close();
