/**
 * AudioWorklet that plays 16 kHz PCM16 agent audio through a small jitter buffer.
 * Messages in: `{ type: 'audio', samples: ArrayBuffer }`, `{ type: 'clear' }`.
 * Messages out (every ~50 ms while active): `{ type: 'progress', playedMs, bufferedMs, playing }`, where
 * `playedMs` counts audio played since the last clear.
 * Playback starts once `prebufferMs` is buffered, or when no more audio has come for `flushAfterMs`
 * (the tail of a reply); an underrun goes back to buffering.
 */
const sourceRate = 16_000;
const prebufferMs = 60;
const flushAfterMs = 120;
const capacity = sourceRate * 30;

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly ring = new Float32Array(capacity);
  private readPosition = 0;
  private writePosition = 0;
  private fraction = 0;
  private playing = false;
  private playedSamples = 0;
  private lastWriteFrame = 0;
  private lastReportFrame = 0;
  private readonly step = sourceRate / sampleRate;

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<{ type: string; samples?: ArrayBuffer }>) => {
      if (event.data.type === 'clear') this.clear();
      else if (event.data.type === 'audio' && event.data.samples) this.write(new Int16Array(event.data.samples));
    };
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const output = outputs[0]?.[0];
    if (!output) return true;
    const buffered = this.writePosition - this.readPosition;
    if (!this.playing && buffered > 0) {
      const idleMs = ((currentFrame - this.lastWriteFrame) * 1000) / sampleRate;
      if ((buffered * 1000) / sourceRate >= prebufferMs || idleMs >= flushAfterMs) this.playing = true;
    }
    for (let i = 0; i < output.length; i++) {
      if (!this.playing || this.readPosition + 1 >= this.writePosition) {
        if (this.playing && this.readPosition + 1 >= this.writePosition) this.underrun();
        output[i] = 0;
        continue;
      }
      const a = this.ring[this.readPosition % capacity]!;
      const b = this.ring[(this.readPosition + 1) % capacity]!;
      output[i] = a + (b - a) * this.fraction;
      this.fraction += this.step;
      const whole = Math.floor(this.fraction);
      this.fraction -= whole;
      this.readPosition += whole;
      this.playedSamples += whole;
    }
    for (let c = 1; c < outputs[0]!.length; c++) outputs[0]![c]!.set(output);
    if (currentFrame - this.lastReportFrame >= sampleRate / 20) this.report();
    return true;
  }

  private write(samples: Int16Array): void {
    for (let i = 0; i < samples.length; i++) {
      this.ring[this.writePosition % capacity] = samples[i]! / 32768;
      this.writePosition++;
    }
    if (this.writePosition - this.readPosition > capacity) this.readPosition = this.writePosition - capacity;
    this.lastWriteFrame = currentFrame;
  }

  private underrun(): void {
    // The last sample is kept for interpolation; it plays once more audio arrives or the tail is flushed.
    if (((currentFrame - this.lastWriteFrame) * 1000) / sampleRate >= flushAfterMs) {
      this.readPosition = this.writePosition;
      this.playedSamples++;
    }
    this.playing = false;
  }

  private clear(): void {
    this.readPosition = this.writePosition;
    this.fraction = 0;
    this.playing = false;
    this.playedSamples = 0;
    this.report();
  }

  private report(): void {
    this.lastReportFrame = currentFrame;
    this.port.postMessage({
      type: 'progress',
      playedMs: (this.playedSamples * 1000) / sourceRate,
      bufferedMs: ((this.writePosition - this.readPosition) * 1000) / sourceRate,
      playing: this.playing,
    });
  }
}

registerProcessor('shoal-playback', PlaybackProcessor);
