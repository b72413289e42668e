import type { TurnLatency } from '../../src/transports/browser/protocol.js';

const stages = [
  { key: 'endpointingMs', label: 'last voice → endpoint (silence)', className: 'endpoint' },
  { key: 'endOfSpeechToTranscriptMs', label: 'end of speech → transcript', className: 'asr' },
  { key: 'dialogueFirstTokenMs', label: 'transcript → first token', className: 'dialogue' },
  { key: 'ttsFirstAudioMs', label: 'first token → first audio', className: 'tts' },
] as const;

/** Per-turn latency waterfall: each stage a bar starting where the previous one ended. */
export class LatencyChart {
  private readonly rows: TurnLatency[] = [];

  constructor(private readonly root: HTMLElement) {}

  reset(): void {
    this.rows.length = 0;
    this.render();
  }

  add(latency: TurnLatency): void {
    const index = this.rows.findIndex((row) => row.turn === latency.turn);
    if (index >= 0) this.rows[index] = latency;
    else this.rows.push(latency);
    this.render();
  }

  private render(): void {
    const totals = this.rows.map(total);
    const scaleMs = Math.max(1000, ...totals);
    const list = this.rows.map((row, i) => {
      const item = document.createElement('div');
      item.className = 'latency-row';
      const label = document.createElement('span');
      label.className = 'latency-label';
      label.textContent = `turn ${row.turn}`;
      const track = document.createElement('div');
      track.className = 'latency-track';
      let offset = 0;
      for (const stage of stages) {
        const ms = row[stage.key];
        if (ms === undefined) continue;
        const bar = document.createElement('div');
        bar.className = `latency-bar ${stage.className}`;
        bar.style.left = `${(offset / scaleMs) * 100}%`;
        bar.style.width = `${Math.max(0.5, (ms / scaleMs) * 100)}%`;
        bar.title = `${stage.label}: ${Math.round(ms)} ms`;
        track.append(bar);
        offset += ms;
      }
      const sum = document.createElement('span');
      sum.className = 'latency-total';
      sum.textContent = `${Math.round(row.voiceToVoiceMs ?? totals[i]!)} ms`;
      sum.title = row.voiceToVoiceMs === undefined ? 'sum of the stages' : 'voice to voice: last caller sample → first agent sample';
      item.append(label, track, sum);
      return item;
    });
    this.root.replaceChildren(...list);
  }
}

function total(row: TurnLatency): number {
  return stages.reduce((sum, stage) => sum + (row[stage.key] ?? 0), 0);
}

export const latencyStages = stages;
