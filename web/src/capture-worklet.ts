/**
 * AudioWorklet that turns the microphone (at the context's rate) into 16 kHz PCM16 frames of 20 ms.
 * Each output sample is the mean of the input samples it covers (a box low-pass before decimation).
 * Posts `{ frame: ArrayBuffer, rms: number }` to the main thread.
 */
const targetRate = 16_000;
const frameSamples = 320;

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly step = sampleRate / targetRate;
  private carry = new Float32Array(0);
  private position = 0;
  private frame = new Int16Array(frameSamples);
  private filled = 0;
  private sumSquares = 0;

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    const buffer = new Float32Array(this.carry.length + channel.length);
    buffer.set(this.carry);
    buffer.set(channel, this.carry.length);
    while (this.position + this.step <= buffer.length) {
      const from = Math.floor(this.position);
      const to = Math.max(from + 1, Math.floor(this.position + this.step));
      let sum = 0;
      for (let i = from; i < to; i++) sum += buffer[i]!;
      this.push(sum / (to - from));
      this.position += this.step;
    }
    const keep = Math.floor(this.position);
    this.carry = buffer.slice(keep);
    this.position -= keep;
    return true;
  }

  private push(value: number): void {
    const clipped = value > 1 ? 1 : value < -1 ? -1 : value;
    this.frame[this.filled++] = Math.round(clipped * 32767);
    this.sumSquares += clipped * clipped;
    if (this.filled < frameSamples) return;
    const rms = Math.sqrt(this.sumSquares / frameSamples);
    this.port.postMessage({ frame: this.frame.buffer, rms }, [this.frame.buffer]);
    this.frame = new Int16Array(frameSamples);
    this.filled = 0;
    this.sumSquares = 0;
  }
}

registerProcessor('shoal-capture', CaptureProcessor);
