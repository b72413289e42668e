import type { ServerMessage } from '../../src/transports/browser/protocol.js';
import { AudioIo } from './audio-io.js';
import { CallConnection, newTraceparent, type CallMode } from './call-connection.js';
import { Captions } from './captions.js';
import { LatencyChart } from './latency-chart.js';

/** Counters of the current call, shown in the footer and read by the browser test. */
const stats = { framesSent: 0, peakLevelSent: 0, audioBytesReceived: 0, playedMs: 0, clears: 0, transcripts: 0, agentWordsAsPlayed: 0, metrics: 0 };
(window as unknown as { shoalStats: typeof stats }).shoalStats = stats;

const page = new URL(location.href).searchParams;
const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const agentPicker = element<HTMLSelectElement>('agent');
const callButton = element<HTMLButtonElement>('call');
const statusLine = element<HTMLElement>('status');
const levelMeter = element<HTMLElement>('level');
const traceLine = element<HTMLElement>('trace');
const captions = new Captions(element('captions'));
const latency = new LatencyChart(element('latency'));

let call: { connection: CallConnection; audio: AudioIo; playedBeforeClear: number; lastPlayedMs: number } | undefined;
let busy = false;

function selectedMode(): CallMode {
  const checked = document.querySelector<HTMLInputElement>('input[name="mode"]:checked');
  return checked?.value === 'low-latency' ? 'low-latency' : 'balanced';
}

function setStatus(text: string, state: 'idle' | 'connecting' | 'live' | 'error'): void {
  statusLine.textContent = text;
  statusLine.dataset['state'] = state;
  document.body.dataset['call'] = state;
}

async function loadAgents(): Promise<void> {
  const response = await fetch('/api/agents');
  const body = (await response.json()) as { default: string; agents: { name: string; description?: string }[] };
  agentPicker.replaceChildren(
    ...body.agents.map((agent) => {
      const option = document.createElement('option');
      option.value = agent.name;
      option.textContent = agent.description ? `${agent.name} — ${agent.description}` : agent.name;
      return option;
    }),
  );
  agentPicker.value = page.get('agent') ?? body.default;
}

function onServerMessage(message: ServerMessage): void {
  switch (message.type) {
    case 'transcript':
      stats.transcripts++;
      captions.caller(message.turn, message.text, message.final);
      return;
    case 'agent_text':
      if (!message.final) stats.agentWordsAsPlayed++;
      captions.agent(message.turn, message.text, message.final, message.interrupted);
      return;
    case 'metrics':
      stats.metrics++;
      latency.add(message);
      return;
    case 'clear':
      stats.clears++;
      call?.audio.clear();
      return;
    case 'hangup':
      captions.note(`The agent ended the call${message.reason ? `: ${message.reason}` : ''}.`);
      return;
    case 'error':
      captions.note(`Server: ${message.message}`);
      return;
    case 'ready':
      return;
  }
}

async function startCall(): Promise<void> {
  busy = true;
  callButton.disabled = true;
  for (const key of Object.keys(stats) as (keyof typeof stats)[]) stats[key] = 0;
  captions.reset();
  latency.reset();
  setStatus('connecting…', 'connecting');
  const traceparent = page.get('traceparent') ?? newTraceparent();
  traceLine.textContent = traceparent;
  let audio: AudioIo | undefined;
  try {
    audio = await AudioIo.open(
      {
        onFrame: (frame, rms) => {
          levelMeter.style.setProperty('--level', String(Math.min(1, rms * 4)));
          if (!call) return;
          stats.framesSent++;
          stats.peakLevelSent = Math.max(stats.peakLevelSent, rms);
          call.connection.sendAudio(frame);
        },
        onProgress: (playedMs) => {
          if (!call) return;
          if (playedMs < call.lastPlayedMs) call.playedBeforeClear += call.lastPlayedMs;
          call.lastPlayedMs = playedMs;
          stats.playedMs = call.playedBeforeClear + playedMs;
        },
      },
      { raw: page.get('raw') === '1' },
    );
    const opened = audio;
    const { connection, ready } = await CallConnection.open(
      { agent: agentPicker.value, mode: selectedMode(), traceparent },
      {
        onMessage: onServerMessage,
        onAudio: (samples) => {
          stats.audioBytesReceived += samples.byteLength;
          opened.play(samples);
        },
        onClose: (code, reason) => void endCall(code === 1000 ? 'call ended' : `disconnected: ${reason || code}`),
      },
    );
    call = { connection, audio, playedBeforeClear: 0, lastPlayedMs: 0 };
    traceLine.textContent = ready.traceparent;
    setStatus(`in a call with ${ready.agent} (${ready.mode})`, 'live');
    callButton.textContent = 'Stop call';
    agentPicker.disabled = true;
  } catch (error) {
    await audio?.close();
    setStatus(error instanceof Error ? error.message : String(error), 'error');
  } finally {
    busy = false;
    callButton.disabled = false;
  }
}

async function endCall(reason: string): Promise<void> {
  const ending = call;
  call = undefined;
  if (!ending) return;
  ending.connection.hangup();
  await ending.audio.close();
  callButton.textContent = 'Start call';
  agentPicker.disabled = false;
  levelMeter.style.setProperty('--level', '0');
  setStatus(reason, 'idle');
}

callButton.addEventListener('click', () => {
  if (busy) return;
  if (call) void endCall('call ended');
  else void startCall();
});
for (const radio of document.querySelectorAll<HTMLInputElement>('input[name="mode"]')) {
  radio.addEventListener('change', () => {
    if (call) captions.note(`${selectedMode() === 'low-latency' ? 'Low latency' : 'Balanced'} mode applies from the next call.`);
  });
}
const initialMode = page.get('mode');
if (initialMode === 'low-latency' || initialMode === 'balanced') {
  document.querySelector<HTMLInputElement>(`input[name="mode"][value="${initialMode}"]`)!.checked = true;
}
loadAgents().catch((error: unknown) => setStatus(`could not list agents: ${String(error)}`, 'error'));
setStatus('press Start call and speak', 'idle');
