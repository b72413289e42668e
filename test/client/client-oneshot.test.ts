import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { parseWav } from '../../src/audio/index.js';
import { runAsr, runTts } from '../../src/cli/run-oneshot.js';

const dir = mkdtempSync(join(tmpdir(), 'shoal-oneshot-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('shoal tts / shoal asr (in-process self-hosted service)', () => {
  it('writes a WAV with tts and reads it back with asr', async () => {
    const out = join(dir, 'hello.wav');
    const printed: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (printed.push(String(chunk)), true));
    try {
      await runTts('Good morning, how can I help?', { out, sampleRate: 16000 });
      await runAsr(out, { language: 'en' });
    } finally {
      spy.mockRestore();
    }
    const wav = parseWav(readFileSync(out));
    expect(wav.sampleRate).toBe(16000);
    expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(1);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(printed.join('')).toMatch(/wrote .*hello\.wav \(wav, \d+ bytes\)/);
    expect(printed.join('').toLowerCase()).toContain('morning');
  });

  it('refuses an output extension it cannot map to a format, writing nothing', async () => {
    const out = join(dir, 'hello.xyz');
    await expect(runTts('Hi', { out })).rejects.toThrow(/use \.wav, \.mp3, \.opus, \.ogg or \.pcm/);
    expect(existsSync(out)).toBe(false);
  });

  it('leaves no file when the service refuses the request', async () => {
    const out = join(dir, 'bad.mp3');
    await expect(runTts('Hi', { out, sampleRate: 22050 })).rejects.toThrow(/22050/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });
});
