import { from } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VoiceAgent, type DialogueOutput } from '../../src/agent/index.js';
import { VirtualClock } from '../../src/pipeline/index.js';
import { FileTransport } from '../../src/transports/file/file-transport.js';
import { AmplitudeStt, callerTrack, EnergyVad, FixedDialogue, ToneTts } from '../support/agent-doubles.js';

/** A dialogue that leaves a voicemail when a machine answers and carries on as usual with a person. */
class OutboundDialogue extends FixedDialogue {
  heard: string[] = [];
  answeredBy(answeredBy: string) {
    this.heard.push(answeredBy);
    if (!answeredBy.startsWith('machine')) return undefined;
    return from<DialogueOutput[]>([{ type: 'text', delta: 'Sorry we missed you, please call us back.' }, { type: 'end-call', reason: 'voicemail left' }]);
  }
}

async function call(answeredBy: string) {
  const clock = new VirtualClock();
  const dialogue = new OutboundDialogue('okay', 'Hello, this is the clinic calling.');
  const agent = new VoiceAgent({ dialogue, stt: new AmplitudeStt(), tts: new ToneTts(), vad: () => new EnergyVad(), mode: 'balanced', clock });
  const transport = new FileTransport(callerTrack(6000, []), clock, { maxTailMs: 4000 });
  const session = agent.handle(transport);
  transport.settle = () => session.settled();
  await Promise.resolve(); // the session starts on the next microtask; detection results come seconds into a call
  transport.events$.next({ type: 'answered-by', answeredBy });
  return { dialogue, session, summary: await session.summary };
}

describe("the carrier's machine detection reaches the dialogue", () => {
  it('a machine: the dialogue leaves its message at once (cutting the greeting) and ends the call', async () => {
    const { dialogue, session, summary } = await call('machine_end_beep');
    expect(dialogue.heard).toEqual(['machine_end_beep']);
    expect(summary.reason).toBe('voicemail left');
    expect(session.history.filter((m) => m.role === 'agent').at(-1)).toEqual({ role: 'agent', text: 'Sorry we missed you, please call us back.' });
  });

  it('a person: nothing changes, the greeting plays', async () => {
    const { dialogue, session, summary } = await call('human');
    expect(dialogue.heard).toEqual(['human']);
    expect(summary.reason).not.toBe('voicemail left');
    expect(session.history[0]).toEqual({ role: 'agent', text: 'Hello, this is the clinic calling.' });
  });
});
