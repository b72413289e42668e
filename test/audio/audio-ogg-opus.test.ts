import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { describe, expect, it } from 'vitest';
import { AudioFormatError, buildOggPage, createEncoder, decodeAudio, OggOpusWriter, oggCrc32, resample } from '../../src/audio/index.js';
import { joinBytes, speech } from '../support/audio-signal.js';

/** Bit-by-bit CRC-32 (poly 0x04c11db7, MSB first, init 0): a reference independent of the table-driven one. */
function referenceCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const top = ((crc >>> 31) ^ (byte >> bit)) & 1;
      crc = ((crc << 1) ^ (top ? 0x04c11db7 : 0)) >>> 0;
    }
  }
  return crc;
}

interface Page {
  flags: number;
  granule: bigint;
  serial: number;
  sequence: number;
  crc: number;
  crcOfPage: number;
  lacing: number[];
  packets: Uint8Array[];
}

/** A minimal independent Ogg demuxer for the checks below (whole packets only). */
function readPages(bytes: Uint8Array): Page[] {
  const pages: Page[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    expect(new TextDecoder().decode(bytes.subarray(offset, offset + 4))).toBe('OggS');
    const view = new DataView(bytes.buffer, bytes.byteOffset + offset);
    const segments = bytes[offset + 26]!;
    const lacing = Array.from(bytes.subarray(offset + 27, offset + 27 + segments));
    const bodyLength = lacing.reduce((a, b) => a + b, 0);
    const pageLength = 27 + segments + bodyLength;
    const page = bytes.slice(offset, offset + pageLength);
    const crc = new DataView(page.buffer).getUint32(22, true);
    page.fill(0, 22, 26);
    const packets: Uint8Array[] = [];
    let packetStart = offset + 27 + segments;
    let size = 0;
    for (const value of lacing) {
      size += value;
      if (value < 255) {
        packets.push(bytes.subarray(packetStart, packetStart + size));
        packetStart += size;
        size = 0;
      }
    }
    expect(size).toBe(0);
    pages.push({
      flags: bytes[offset + 5]!,
      granule: view.getBigInt64(6, true),
      serial: view.getUint32(14, true),
      sequence: view.getUint32(18, true),
      crc,
      crcOfPage: referenceCrc(page),
      lacing,
      packets,
    });
    offset += pageLength;
  }
  return pages;
}

async function encodeOpus(samples48k: Int16Array, chunk: number, opusBitrate?: number): Promise<Uint8Array[]> {
  const encoder = await createEncoder({ format: 'opus', opusBitrate });
  const out: Uint8Array[] = [];
  for (let offset = 0; offset < samples48k.length; offset += chunk) out.push(encoder.write(samples48k.subarray(offset, offset + chunk)));
  out.push(encoder.end());
  return out;
}

describe('Ogg Opus muxer', () => {
  it('computes the Ogg CRC-32 of known data', () => {
    expect(oggCrc32(new TextEncoder().encode('123456789'))).toBe(0x89a1897f);
    const random = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919 + (i >> 3)) & 0xff);
    expect(oggCrc32(random)).toBe(referenceCrc(random));
  });

  it('writes pages with valid CRCs, lacing, sequence numbers, BOS/EOS flags and granule positions', async () => {
    const voice = await resample(speech('slt_00'), 16000, 48000);
    const stream = joinBytes(await encodeOpus(voice, 4800, 32));
    const pages = readPages(stream);
    for (const page of pages) expect(page.crc).toBe(page.crcOfPage);
    expect(pages.map((p) => p.sequence)).toEqual(pages.map((_, i) => i));
    expect(new Set(pages.map((p) => p.serial)).size).toBe(1);
    expect(pages[0]!.flags).toBe(0x02);
    expect(pages.at(-1)!.flags).toBe(0x04);
    expect(pages.slice(1, -1).every((p) => p.flags === 0)).toBe(true);

    const head = pages[0]!.packets[0]!;
    expect(new TextDecoder().decode(head.subarray(0, 8))).toBe('OpusHead');
    const headView = new DataView(head.buffer, head.byteOffset, head.byteLength);
    expect(head[8]).toBe(1);
    expect(head[9]).toBe(1);
    const preSkip = headView.getUint16(10, true);
    expect(preSkip).toBe(312);
    expect(new TextDecoder().decode(pages[1]!.packets[0]!.subarray(0, 8))).toBe('OpusTags');
    expect(pages[0]!.granule).toBe(0n);
    expect(pages[1]!.granule).toBe(0n);

    const audioPages = pages.slice(2);
    expect(audioPages.some((p) => p.packets.length > 1)).toBe(true);
    let packets = 0;
    let previous = 0n;
    for (const page of audioPages.slice(0, -1)) {
      packets += page.packets.length;
      expect(page.granule).toBe(BigInt(packets * 960));
      expect(page.granule).toBeGreaterThan(previous);
      previous = page.granule;
    }
    expect(audioPages.at(-1)!.granule).toBe(BigInt(preSkip + voice.length));
    packets += audioPages.at(-1)!.packets.length;
    expect(packets * 960).toBeGreaterThanOrEqual(preSkip + voice.length);
    expect((packets - 1) * 960).toBeLessThan(preSkip + voice.length);
  });

  it('splits packets over several pages when a page would pass 255 lacing values', () => {
    const writer = new OggOpusWriter({ preSkip: 312, maxPacketsPerPage: 1000 });
    const pages = readPages(joinBytes(writer.pages(Array(100).fill(new Uint8Array(600)), 960)));
    expect(pages.map((p) => p.packets.length)).toEqual([1, 1, 85, 15]);
    expect(pages.slice(2).map((p) => p.granule)).toEqual([85n * 960n, 100n * 960n]);
  });

  it('writes lacing values with a closing 0 after a packet of a multiple of 255 bytes, and refuses over-full pages', () => {
    const big = new Uint8Array(600).fill(1);
    const page = buildOggPage({ serial: 1, sequence: 0, granule: 0n, flags: 0, packets: [big, new Uint8Array(255)] });
    expect(readPages(page)[0]!.lacing).toEqual([255, 255, 90, 255, 0]);
    expect(() => buildOggPage({ serial: 1, sequence: 0, granule: 0n, flags: 0, packets: Array(86).fill(big) })).toThrow(/255 lacing/);
  });

  it('is accepted by ogg-opus-decoder with the exact input length after pre-skip', async () => {
    const voice = await resample(speech('rms_00'), 16000, 48000);
    const stream = joinBytes(await encodeOpus(voice, 960 * 7 + 13));
    const decoder = new OggOpusDecoder();
    await decoder.ready;
    const decoded = await decoder.decodeFile(stream);
    decoder.free();
    expect(decoded.errors).toEqual([]);
    expect(decoded.sampleRate).toBe(48000);
    expect(decoded.samplesDecoded).toBe(voice.length);
  });

  it('emits its header pages on the first write, before any audio frame is complete', async () => {
    const encoder = await createEncoder({ format: 'opus' });
    const first = encoder.write(new Int16Array(100));
    expect(readPages(first).map((p) => p.flags)).toEqual([0x02, 0]);
    expect(encoder.write(new Int16Array(100)).length).toBe(0);
    expect(readPages(encoder.write(new Int16Array(960))).length).toBe(1);
    const last = readPages(encoder.end());
    expect(last.at(-1)!.flags).toBe(0x04);
    expect(last.at(-1)!.granule).toBe(BigInt(312 + 1160));
  });

  it('decoding rejects a page whose CRC does not match, and reads a stream cut mid-page up to its last whole page', async () => {
    const voice = await resample(speech('slt_05'), 16000, 48000);
    const stream = joinBytes(await encodeOpus(voice, 9600));
    const corrupt = stream.slice();
    corrupt[stream.length - 10]! ^= 0x01;
    await expect(decodeAudio(corrupt)).rejects.toThrow(AudioFormatError);
    await expect(decodeAudio(corrupt)).rejects.toThrow(/fails its CRC check/);

    const pages = readPages(stream);
    const cut = stream.length - 5;
    const decoded = await decodeAudio(stream.subarray(0, cut));
    expect(decoded.samples.length).toBe(Number(pages.at(-2)!.granule) - 312);
    const headersOnly = pages[0]!.packets[0]!.length + pages[1]!.packets[0]!.length + 2 * 28;
    await expect(decodeAudio(stream.subarray(0, headersOnly))).rejects.toThrow(/truncated/);
  });

  const ffprobe = (() => {
    try {
      return execFileSync('which', ['ffprobe'], { encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  })();

  it.skipIf(!ffprobe)('is accepted by ffprobe as Ogg Opus with the right duration', async () => {
    const voice = await resample(speech('slt_01'), 16000, 48000);
    const dir = mkdtempSync(join(tmpdir(), 'shoal-ogg-'));
    try {
      const file = join(dir, 'speech.opus');
      writeFileSync(file, joinBytes(await encodeOpus(voice, 4800)));
      const report = JSON.parse(
        execFileSync(ffprobe, ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', file], { encoding: 'utf8' }),
      );
      expect(report.streams[0].codec_name).toBe('opus');
      expect(report.streams[0].channels).toBe(1);
      expect(Number(report.format.duration)).toBeCloseTo(voice.length / 48000, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
