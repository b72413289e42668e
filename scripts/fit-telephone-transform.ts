/**
 * Fits the telephone band's MLLR transform (src/engines/pocketsphinx/telephone-transform.ts) again and prints
 * its streams as JSON. Needs Debian's sphinxtrain, sphinxbase-utils and pocketsphinx-testdata
 * (`apt-get install sphinxtrain sphinxbase-utils pocketsphinx-testdata`); nothing at run time needs them.
 * Run: npx tsx scripts/fit-telephone-transform.ts [work directory, default a new temporary one]
 *
 * The speech: the tuning fold of test/fixtures/human (folds.json) and three more sentences of its LibriVox
 * reader from pocketsphinx-testdata, through the telephone channel bench/listening.ts uses (8 kHz mu-law and
 * back to 16 kHz). sphinxtrain's `bw` aligns them to their transcripts with the en-us model, whose mixture
 * weights it needs unquantised: they are expanded from the model's sendump first.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaults } from '../src/engines/pocketsphinx/options.js';
import { readPcmWav, throughTelephoneChannel } from '../test/engines-fixtures.js';

const sphinxtrain = '/usr/lib/sphinxtrain';
const librivox = '/usr/share/pocketsphinx/test/data/librivox/';
const librivoxClips = ['0880', '0920', '0930'].map((n) => `sense_and_sensibility_01_austen_64kb-${n}`);
const work = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'shoal-fit-'));
const model = join(work, 'model');
const audio = join(work, 'audio');

function run(command: string, args: string[]): void {
  try {
    execFileSync(command, args, { cwd: audio, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    throw new Error(`${command} failed (apt-get install sphinxtrain sphinxbase-utils pocketsphinx-testdata): ${(error as { stderr?: Buffer }).stderr?.toString().slice(-2000) ?? error}`);
  }
}

/** The model's mixture weights, quantised in its sendump (8-bit negative logs base 1.0001, shifted), as an s3 mixture_weights file. */
function expandMixtureWeights(sendump: Buffer): Buffer {
  let at = 0;
  const uint = () => ((at += 4), sendump.readUInt32LE(at - 4));
  const header: Record<string, number> = {};
  for (let length = uint(); length > 0; length = uint()) {
    const [key, value] = sendump.toString('latin1', at, at + length - 1).split(/\s+/);
    if (key && value && /^\d+$/.test(value)) header[key] = Number(value);
    at += length;
  }
  if (header.cluster_count !== 0) throw new Error('only an unclustered sendump can be expanded');
  const densities = uint();
  const senones = uint();
  const streams = header.feature_count!;
  const shift = header.mixw_shift ?? 10;
  const weights = new Float32Array(senones * streams * densities);
  for (let stream = 0; stream < streams; stream++)
    for (let density = 0; density < densities; density++)
      for (let senone = 0; senone < senones; senone++) weights[(senone * streams + stream) * densities + density] = 1.0001 ** -(sendump[at++]! << shift);
  const text = Buffer.from('s3\nversion 1.0\n  endhdr\n'); // the data on a 4-byte boundary
  const dims = Buffer.alloc(20);
  [0x11223344, senones, streams, densities, weights.length].forEach((value, i) => dims.writeUInt32LE(value, i * 4));
  return Buffer.concat([text, dims, Buffer.from(weights.buffer)]);
}

mkdirSync(model, { recursive: true });
mkdirSync(audio, { recursive: true });
for (const file of readdirSync(defaults.acousticModelDir)) copyFileSync(join(defaults.acousticModelDir, file), join(model, file));
writeFileSync(join(model, 'mixture_weights'), expandMixtureWeights(readFileSync(join(defaults.acousticModelDir, 'sendump'))));
execFileSync('pocketsphinx_mdef_convert', ['-text', join(model, 'mdef'), join(model, 'mdef.txt')], { stdio: 'ignore' });

const folds = JSON.parse(readFileSync('test/fixtures/human/folds.json', 'utf8')) as { tuning: string[] };
const manifest = JSON.parse(readFileSync('test/fixtures/human/manifest.json', 'utf8')) as Array<{ file: string; text: string }>;
const librivoxText = new Map(
  readFileSync(join(librivox, 'transcription'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => /<s> (.*) <\/s> \((.*)\)/.exec(line)!)
    .map(([, text, id]) => [id!, text!]),
);
const clips = [
  ...manifest.filter((c) => folds.tuning.includes(c.file)).map((c) => ({ id: c.file.replace('.wav', ''), path: `test/fixtures/human/${c.file}`, text: c.text })),
  ...librivoxClips.map((id) => ({ id, path: join(librivox, `${id}.wav`), text: librivoxText.get(id)! })),
];
for (const clip of clips) {
  const pcm = await throughTelephoneChannel(readPcmWav(clip.path).samples);
  writeFileSync(join(audio, `${clip.id}.raw`), Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
}
writeFileSync(join(audio, 'fileids'), clips.map((c) => c.id + '\n').join(''));
writeFileSync(join(audio, 'transcription'), clips.map((c) => `<s> ${c.text} </s> (${c.id})\n`).join(''));
process.stderr.write(`${clips.length} clips through the telephone channel in ${audio}; aligning (bw) and solving (mllr_solve)\n`);

// -dither: the clips' exact digital silence would give log(0) energies.
run('sphinx_fe', ['-argfile', join(model, 'feat.params'), '-samprate', '16000', '-c', 'fileids', '-di', '.', '-do', '.', '-ei', 'raw', '-eo', 'mfc', '-raw', 'yes', '-dither', 'yes']);
run(join(sphinxtrain, 'bw'), [
  '-hmmdir', model, '-moddeffn', join(model, 'mdef.txt'), '-ts2cbfn', '.ptm.', '-feat', '1s_c_d_dd', '-svspec', '0-12/13-25/26-38',
  '-cmn', 'current', '-agc', 'none', '-dictfn', defaults.dictionaryPath, '-fdictfn', join(model, 'noisedict'),
  '-ctlfn', 'fileids', '-lsnfn', 'transcription', '-cepdir', '.', '-cepext', 'mfc', '-accumdir', '.',
]);
run(join(sphinxtrain, 'mllr_solve'), ['-meanfn', join(model, 'means'), '-varfn', join(model, 'variances'), '-outmllrfn', 'mllr_matrix', '-accumdir', '.']);

// mllr_matrix: classes (1), streams, then per stream its length, the matrix rows, the offset and the variance scales.
const numbers = readFileSync(join(audio, 'mllr_matrix'), 'utf8').trim().split(/\s+/).map(Number);
let at = 2;
const streams = Array.from({ length: numbers[1]! }, () => {
  const length = numbers[at++]!;
  const take = () => numbers.slice(at, (at += length));
  const matrix = Array.from({ length }, take);
  const offset = take();
  take();
  return { matrix, offset };
});
console.log(JSON.stringify(streams));
