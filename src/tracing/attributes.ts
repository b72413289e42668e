/**
 * Every span attribute Shoal sets, by one rule: `shoal.<subject>.<snake_case name>`, durations ending `_ms`.
 * docs/tracing.md lists them in a table; set attributes through these names, never a literal.
 */
export const spanAttributes = {
  callMode: 'shoal.call.mode',
  callDialogue: 'shoal.call.dialogue',
  callTurns: 'shoal.call.turns',
  callInterruptions: 'shoal.call.interruptions',
  callErrors: 'shoal.call.errors',
  callDurationMs: 'shoal.call.duration_ms',
  callHangupReason: 'shoal.call.hangup_reason',
  callGoodbyeReason: 'shoal.call.goodbye_reason',
  errorStage: 'shoal.error.stage',
  turnNumber: 'shoal.turn.number',
  turnKind: 'shoal.turn.kind',
  turnDiscarded: 'shoal.turn.discarded',
  turnInterrupted: 'shoal.turn.interrupted',
  turnPreemptive: 'shoal.turn.preemptive',
  turnVoiceToVoiceMs: 'shoal.turn.voice_to_voice_ms',
  turnEndpointingMs: 'shoal.turn.endpointing_ms',
  turnFrameworkOverheadMs: 'shoal.turn.framework_overhead_ms',
  turnSttProvider: 'shoal.turn.stt_provider',
  turnTtsProvider: 'shoal.turn.tts_provider',
  turnSttCharge: 'shoal.turn.stt_charge',
  turnTtsCharge: 'shoal.turn.tts_charge',
  asrEndOfSpeechToFinalMs: 'shoal.asr.end_of_speech_to_final_ms',
  asrAudioBytes: 'shoal.asr.audio_bytes',
  asrPieces: 'shoal.asr.pieces',
  asrAudioMs: 'shoal.asr.audio_ms',
  asrWords: 'shoal.asr.words',
  dialogueFirstTokenMs: 'shoal.dialogue.first_token_ms',
  ttsFirstAudioMs: 'shoal.tts.first_audio_ms',
  ttsModel: 'shoal.tts.model',
  ttsFormat: 'shoal.tts.format',
  ttsChunks: 'shoal.tts.chunks',
  ttsChunk: 'shoal.tts.chunk',
  ttsChunkChars: 'shoal.tts.chunk_chars',
  ttsTextChars: 'shoal.tts.text_chars',
  ttsAudioBytes: 'shoal.tts.audio_bytes',
  voiceDesignCandidates: 'shoal.voice_design.candidates',
  voiceDesignSeed: 'shoal.voice_design.seed',
  liveCloseCode: 'shoal.live.close_code',
} as const;

/** The naming rule above, as a pattern (tests check every attribute a trace carries against it). */
export const spanAttributePattern = /^shoal\.[a-z_]+\.[a-z0-9_]+$/;
