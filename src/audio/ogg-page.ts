/** Ogg pages (RFC 3533): CRC-32 with polynomial 0x04c11db7, lacing, header flags. */

export const OGG_CONTINUED = 0x01;
export const OGG_BEGINNING_OF_STREAM = 0x02;
export const OGG_END_OF_STREAM = 0x04;

/** Most lacing values one page may carry. */
export const MAX_SEGMENTS_PER_PAGE = 255;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

/** Ogg's CRC-32: polynomial 0x04c11db7, not reflected, initial value 0, no final XOR. */
export function oggCrc32(bytes: Uint8Array): number {
  let crc = 0;
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ bytes[i]!) & 0xff]!) >>> 0;
  return crc >>> 0;
}

/** Number of lacing values a packet of this many bytes takes. */
export function lacingSegments(packetBytes: number): number {
  return Math.floor(packetBytes / 255) + 1;
}

export interface OggPageFields {
  serial: number;
  sequence: number;
  /** Granule position of the last packet completed on the page; -1 when none completes. */
  granule: bigint;
  flags: number;
  /** Whole packets on this page (none spans a page boundary). */
  packets: readonly Uint8Array[];
}

/** Builds one page with its lacing table and CRC. Throws if the packets need more than 255 lacing values. */
export function buildOggPage(fields: OggPageFields): Uint8Array {
  const lacing: number[] = [];
  let bodyBytes = 0;
  for (const packet of fields.packets) {
    for (let left = packet.length; ; left -= 255) {
      if (left >= 255) lacing.push(255);
      else {
        lacing.push(left);
        break;
      }
    }
    bodyBytes += packet.length;
  }
  if (lacing.length > MAX_SEGMENTS_PER_PAGE) {
    throw new RangeError(`an Ogg page holds at most ${MAX_SEGMENTS_PER_PAGE} lacing values, these packets need ${lacing.length}`);
  }
  const headerBytes = 27 + lacing.length;
  const page = new Uint8Array(headerBytes + bodyBytes);
  const view = new DataView(page.buffer);
  page.set([0x4f, 0x67, 0x67, 0x53], 0);
  page[4] = 0;
  page[5] = fields.flags;
  view.setBigInt64(6, fields.granule, true);
  view.setUint32(14, fields.serial >>> 0, true);
  view.setUint32(18, fields.sequence >>> 0, true);
  page[26] = lacing.length;
  page.set(lacing, 27);
  let offset = headerBytes;
  for (const packet of fields.packets) {
    page.set(packet, offset);
    offset += packet.length;
  }
  view.setUint32(22, oggCrc32(page), true);
  return page;
}

/**
 * Walks the pages of an Ogg stream and checks each one's capture pattern and CRC. Returns the length of the
 * prefix made of complete pages (a stream cut mid-page is read up to its last whole page).
 * Throws a plain Error naming the first bad page; callers wrap it in their own error kind.
 */
export function completeOggPrefix(bytes: Uint8Array): { bytes: number; pages: number } {
  let offset = 0;
  let pages = 0;
  while (offset + 27 <= bytes.length) {
    if (bytes[offset] !== 0x4f || bytes[offset + 1] !== 0x67 || bytes[offset + 2] !== 0x67 || bytes[offset + 3] !== 0x53) {
      throw new Error(`Ogg page ${pages} at byte ${offset} lacks the "OggS" capture pattern`);
    }
    const segments = bytes[offset + 26]!;
    if (offset + 27 + segments > bytes.length) break;
    let bodyLength = 0;
    for (let i = 0; i < segments; i++) bodyLength += bytes[offset + 27 + i]!;
    const pageLength = 27 + segments + bodyLength;
    if (offset + pageLength > bytes.length) break;
    const page = Uint8Array.prototype.slice.call(bytes, offset, offset + pageLength);
    const stored = new DataView(page.buffer).getUint32(22, true);
    page.fill(0, 22, 26);
    if (oggCrc32(page) !== stored) throw new Error(`Ogg page ${pages} at byte ${offset} fails its CRC check (corrupt data)`);
    offset += pageLength;
    pages++;
  }
  return { bytes: offset, pages };
}
