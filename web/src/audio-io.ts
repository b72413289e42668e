/** Microphone capture and agent playback, both through AudioWorklets on one AudioContext. */
export interface AudioIoEvents {
  /** One 20 ms frame of 16 kHz PCM16 from the microphone, with its RMS level (0..1). */
  onFrame(frame: ArrayBuffer, rms: number): void;
  /** Playback progress: ms played since the last clear, ms still buffered. */
  onProgress(playedMs: number, bufferedMs: number, playing: boolean): void;
}

export interface AudioIoOptions {
  /** Turns off the browser's echo cancellation, noise suppression and gain control. */
  raw: boolean;
}

export class AudioIo {
  private constructor(
    private readonly context: AudioContext,
    private readonly stream: MediaStream,
    private readonly playback: AudioWorkletNode,
    private readonly capture: AudioWorkletNode,
  ) {}

  static async open(events: AudioIoEvents, options: AudioIoOptions): Promise<AudioIo> {
    const processing = !options.raw;
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: { channelCount: 1, echoCancellation: processing, noiseSuppression: processing, autoGainControl: processing },
    });
    const context = new AudioContext({ latencyHint: 'interactive' });
    try {
      await context.audioWorklet.addModule('/capture-worklet.js');
      await context.audioWorklet.addModule('/playback-worklet.js');
      const source = context.createMediaStreamSource(stream);
      const capture = new AudioWorkletNode(context, 'shoal-capture', { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1] });
      capture.port.onmessage = (event: MessageEvent<{ frame: ArrayBuffer; rms: number }>) => events.onFrame(event.data.frame, event.data.rms);
      // Connected to the output through a muted gain so every browser keeps pulling the capture node.
      const mute = context.createGain();
      mute.gain.value = 0;
      source.connect(capture).connect(mute).connect(context.destination);
      const playback = new AudioWorkletNode(context, 'shoal-playback', { numberOfInputs: 0, numberOfOutputs: 1, outputChannelCount: [1] });
      playback.port.onmessage = (event: MessageEvent<{ playedMs: number; bufferedMs: number; playing: boolean }>) =>
        events.onProgress(event.data.playedMs, event.data.bufferedMs, event.data.playing);
      playback.connect(context.destination);
      if (context.state === 'suspended') await context.resume();
      return new AudioIo(context, stream, playback, capture);
    } catch (error) {
      stream.getTracks().forEach((track) => track.stop());
      void context.close();
      throw error;
    }
  }

  play(samples: ArrayBuffer): void {
    this.playback.port.postMessage({ type: 'audio', samples }, [samples]);
  }

  /** Barge-in: drops everything buffered at once. */
  clear(): void {
    this.playback.port.postMessage({ type: 'clear' });
  }

  get contextRate(): number {
    return this.context.sampleRate;
  }

  async close(): Promise<void> {
    this.capture.port.onmessage = null;
    this.playback.port.onmessage = null;
    this.stream.getTracks().forEach((track) => track.stop());
    await this.context.close();
  }
}
