/**
 * Where a WASM module's read-only data ends in its linear memory, read from the binary: the end of the active data
 * segment that the module's name section calls `.rodata` (wasm-ld names its segments `.rodata`, `.data`, ...).
 * Everything below that address is constant data the program never writes, so it need not be restored between runs.
 */

const section = { custom: 0, data: 11 } as const;
const opcode = { i32Const: 0x41, end: 0x0b } as const;
const dataSegmentNames = 9;

/** The end address of the `.rodata` segment, or 0 when the binary does not say (then nothing counts as read-only). */
export function readOnlyDataEnd(binary: Uint8Array): number {
  const reader = new BinaryReader(binary);
  reader.at = 8; // magic and version
  let segments: Array<{ offset: number | undefined; length: number }> = [];
  let names = new Map<number, string>();
  while (!reader.done()) {
    const id = reader.byte();
    const size = reader.u32();
    const end = reader.at + size;
    if (id === section.data) segments = readSegments(reader);
    if (id === section.custom && reader.name() === 'name') names = readSegmentNames(reader, end);
    reader.at = end;
  }
  const index = [...names].find(([, name]) => name === '.rodata')?.[0];
  const rodata = index === undefined ? undefined : segments[index];
  return rodata?.offset === undefined ? 0 : rodata.offset + rodata.length;
}

function readSegments(reader: BinaryReader): Array<{ offset: number | undefined; length: number }> {
  return Array.from({ length: reader.u32() }, () => {
    const flags = reader.u32();
    if (flags === 2) reader.u32(); // memory index
    let offset: number | undefined;
    if (flags !== 1) {
      const op = reader.byte();
      const value = reader.s32();
      offset = op === opcode.i32Const && reader.byte() === opcode.end ? value : undefined;
    }
    const length = reader.u32();
    reader.at += length;
    return { offset, length };
  });
}

function readSegmentNames(reader: BinaryReader, end: number): Map<number, string> {
  const names = new Map<number, string>();
  while (reader.at < end) {
    const id = reader.byte();
    const size = reader.u32();
    const next = reader.at + size;
    if (id === dataSegmentNames) {
      for (let count = reader.u32(); count > 0; count--) names.set(reader.u32(), reader.name());
    }
    reader.at = next;
  }
  return names;
}

class BinaryReader {
  at = 0;
  constructor(private readonly bytes: Uint8Array) {}

  done(): boolean {
    return this.at >= this.bytes.length;
  }

  byte(): number {
    if (this.done()) throw new RangeError('truncated WASM binary');
    return this.bytes[this.at++]!;
  }

  u32(): number {
    let result = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = this.byte();
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
  }

  s32(): number {
    let result = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = this.byte();
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return shift < 32 && byte & 0x40 ? result | (-1 << shift) : result;
  }

  name(): string {
    const length = this.u32();
    const text = new TextDecoder().decode(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return text;
  }
}
