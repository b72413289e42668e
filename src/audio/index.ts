export * from './frame.js';
export { AudioFormatError, UnsupportedAudioSettingError } from './errors.js';
export {
  applyGainDb,
  bytesToInt16,
  clipToInt16,
  concatSamples,
  dbToLinear,
  float32ToInt16,
  int16ToBytes,
  int16ToFloat32,
  linearToDb,
  peak,
  rms,
  rmsDbfs,
} from './pcm.js';
export { gatedLoudnessDb, normalizeLoudness } from './loudness.js';
export type { LoudnessOptions, NormalizeOptions } from './loudness.js';
export { enhanceSample, measureSample } from './voice-sample.js';
export type { SampleMeasures } from './voice-sample.js';
export { decodeALaw, decodeMuLaw, encodeALaw, encodeMuLaw } from './g711.js';
export { parseWav } from './wav-read.js';
export type { ParsedWav, WavEncoding } from './wav-read.js';
export { encodeWav, wavHeader, STREAMED_DATA_SIZE } from './wav-write.js';
export { LowPassFilter } from './low-pass.js';
export { Resampler, resample, preloadResampler, RESAMPLER_RATES, RESAMPLER_RATE_RANGE } from './resampler.js';
export type { ResamplerOptions } from './resampler.js';
export { createEncoder, encodeAudio, concatBytes, inlineEncoder } from './streaming-encoder.js';
export type { StreamingEncoder, AsyncStreamingEncoder, EncoderOptions } from './streaming-encoder.js';
export {
  AUDIO_FORMATS,
  FORMAT_SPECS,
  MP3_BITRATES_KBPS,
  OPUS_BITRATES,
  checkMp3Bitrate,
  checkOpusBitrate,
  checkSampleRate,
  isAudioFormat,
} from './formats.js';
export type { AudioFormat, FormatSpec } from './formats.js';
export { decodeAudio, decodeAudioAt, sniffContainer } from './decode-audio.js';
export type { SniffedContainer } from './decode-audio.js';
export { decodeFlac, decodeMp3, decodeOggOpus } from './decoders.js';
export type { DecodedAudio, DecodeLimits } from './decoders.js';
export { AudioTooLongError, containerDurationMs } from './audio-duration.js';
export { Mp3StreamEncoder } from './mp3-encoder.js';
export { OggOpusStreamEncoder, OPUS_AUTO_BITRATE, OPUS_SAMPLE_RATE } from './opus-encoder.js';
export type { OpusEncoderOptions } from './opus-encoder.js';
export { OggOpusWriter } from './ogg-opus-writer.js';
export { oggCrc32, buildOggPage } from './ogg-page.js';
export { OpusDemuxer } from './opus-demuxer.js';
export type { OpusPieces } from './opus-demuxer.js';
export { opusPacketSamples, readOpusHead } from './opus-packet.js';
export type { OpusHead } from './opus-packet.js';
export { OpusStreamDecoder } from './opus-stream-decoder.js';
export type { OpusOutputRate } from './opus-stream-decoder.js';
