/**
 * Sphinx-3 Gaussian parameter files (an acoustic model's `means` and `variances`): a text header up to
 * `endhdr\n`, a byte-order word, the dimensions, then float32 values, codebook by codebook, stream by stream,
 * density by density.
 */
export interface GaussianFile {
  codebooks: number;
  densities: number;
  /** The length of each feature stream (the en-us model: 13, 13, 13). */
  streamLengths: number[];
  values: Float32Array;
}

const byteOrder = 0x11223344;
const endOfHeader = 'endhdr\n';
/** Without a checksum (`chksum0 yes` would ask for one), and padded so that the values start 4-byte aligned. */
const writtenHeader = Buffer.from('s3\nversion 1.0\n  endhdr\n');

export function readGaussianFile(bytes: Buffer, name: string): GaussianFile {
  const headerEnd = bytes.indexOf(endOfHeader);
  if (!bytes.subarray(0, 3).equals(Buffer.from('s3\n')) || headerEnd < 0) throw new Error(`${name} is not a Sphinx-3 Gaussian parameter file`);
  let at = headerEnd + endOfHeader.length;
  const word = () => {
    const value = bytes.readUInt32LE(at);
    at += 4;
    return value;
  };
  if (word() !== byteOrder) throw new Error(`${name} is big-endian or damaged; only little-endian model files are read`);
  const codebooks = word();
  const streams = word();
  const densities = word();
  const streamLengths = Array.from({ length: streams }, word);
  const count = word();
  const expected = codebooks * densities * streamLengths.reduce((sum, length) => sum + length, 0);
  if (count !== expected || bytes.length < at + count * 4) throw new Error(`${name} holds ${count} values where its dimensions give ${expected}`);
  const values = new Float32Array(count);
  for (let i = 0; i < count; i++) values[i] = bytes.readFloatLE(at + i * 4);
  return { codebooks, densities, streamLengths, values };
}

export function writeGaussianFile(file: GaussianFile): Buffer {
  const dimensions = [byteOrder, file.codebooks, file.streamLengths.length, file.densities, ...file.streamLengths, file.values.length];
  const body = Buffer.alloc((dimensions.length + file.values.length) * 4);
  dimensions.forEach((value, i) => body.writeUInt32LE(value, i * 4));
  file.values.forEach((value, i) => body.writeFloatLE(value, (dimensions.length + i) * 4));
  return Buffer.concat([writtenHeader, body]);
}

/**
 * Calls `each` with the offset in `values` of every density's vector in stream `stream` of codebook
 * `codebook` (the vector is `streamLengths[stream]` values long).
 */
export function forEachDensity(file: GaussianFile, codebook: number, stream: number, each: (offset: number) => void): void {
  const perDensity = file.streamLengths.reduce((sum, length) => sum + length, 0);
  const streamStart = file.streamLengths.slice(0, stream).reduce((sum, length) => sum + length, 0);
  const codebookStart = codebook * file.densities * perDensity;
  const length = file.streamLengths[stream]!;
  for (let density = 0; density < file.densities; density++) each(codebookStart + streamStart * file.densities + density * length);
}
