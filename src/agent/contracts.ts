import type { Observable } from 'rxjs';
import type { AudioFrame } from '../audio/frame.js';
import type { Expectation, WordTiming } from '../speech/index.js';

/** W3C trace context of a call, as carried by its transport. */
export interface CallTraceContext {
  traceparent?: string;
  tracestate?: string;
}

export type TransportEvent =
  | { type: 'connected' }
  | { type: 'dtmf'; digit: string }
  | { type: 'hangup'; reason?: string }
  /** The carrier's answering-machine detection concluded (an outbound phone call): `human`, `machine_…`, `fax`, `unknown`. */
  | { type: 'answered-by'; answeredBy: string }
  /** Application messages from the peer (e.g. the browser page choosing a mode). */
  | { type: 'message'; data: unknown };

/** How a call arrived, for its record: the transport and, where there are some, the carrier's or room's ids. */
export interface TransportDescription {
  /** `phone`, `browser`, `livekit`, `file` (`shoal talk`). */
  kind: string;
  /** A phone call's carrier (`twilio`, `telnyx`, …). */
  carrier?: string;
  /** The carrier's call id (Twilio's CallSid), the browser call's id, or the LiveKit room. */
  callId?: string;
  from?: string;
  to?: string;
}

/** Where caller audio comes from and agent audio goes to: a browser socket, a phone line, a room, a file. */
export interface Transport {
  /** How the call arrived (call records); absent: an unnamed transport. */
  describe?(): TransportDescription;
  /** Caller audio, any sample rate; completes when the caller hangs up. */
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  readonly traceContext: CallTraceContext;
  /** Queues agent audio for playout (any sample rate; the transport converts at its edge). */
  play(frame: AudioFrame): void;
  /**
   * The rate the transport plays agent audio at, when it converts other rates at its edge (a phone line's 8 kHz):
   * speech synthesised at this rate needs no conversion. Absent: any rate suits the transport equally.
   */
  readonly playoutRate?: number;
  /** Drops all queued agent audio at once (barge-in). */
  clear(): void;
  /** Milliseconds of agent audio actually played out since the last `clear()`/utterance start, when the transport knows. */
  playedMs?(): number;
  /** Milliseconds of agent audio handed over but not yet played out, when the transport knows. */
  pendingMs?(): number;
  /**
   * True when the caller's audio came through a telephone network, whatever rate it arrives at (a LiveKit SIP
   * participant's audio is 8 kHz telephone audio in a 48 kHz track). An 8 kHz line needs no flag.
   */
  readonly telephoneBand?: boolean;
  /** Sends an application message to the peer (captions, metrics) when the transport has a side channel. */
  send?(message: unknown): void;
  hangup(reason?: string): void;
}

export interface TranscriptEvent {
  text: string;
  words: WordTiming[];
  final: boolean;
  /** On a final recognised with expectations: false when it came out as open vocabulary, outside them. */
  expected?: boolean;
  /** The recogniser's confidence in `text`, 0..1, when it gives one. */
  confidence?: number;
  /**
   * The provider's own end-of-speech signal came with (or as) this event (Deepgram's `speech_final` or
   * `UtteranceEnd`): one more input to Shoal's endpointing, never a replacement for it.
   */
  endOfSpeech?: boolean;
  /** The provider that recognised it (`SpeechToText.provider`), set by adapters and by failover. */
  provider?: string;
  /** Credits the speech service billed for this event's recognition, when it reports a charge. */
  charge?: number;
}

/**
 * A frame of a caller's utterance and, when known, whether the voice activity detector heard speech in it
 * and how much more silence the endpoint needs after it (as it stands now).
 */
export interface UtteranceFrame extends AudioFrame {
  readonly speaking?: boolean;
  readonly endpointInMs?: number;
}

/**
 * Streaming recognition: frames in, interim and final transcripts out. A provider adapter (`plugins/<provider>`)
 * implements it with `provider` and `capabilities` set; see plugins/README.md.
 */
export interface SpeechToText {
  /**
   * `utterance$` emits the frames of one utterance (VAD-bounded) and completes when Shoal's endpoint fires: the
   * completion is "finalise now" (Deepgram's `Finalize`), after which the final transcript is due at once.
   * Errors are `ProviderError`s where a provider is at fault, so that failover can hand over.
   */
  transcribe(utterance$: Observable<UtteranceFrame>, options?: WorkOptions): Observable<TranscriptEvent>;
  /**
   * Optional: a recognizer scoped to one call, used for all its utterances (one after another), so that
   * what adapts to the caller (e.g. a decoder's cepstral mean) carries over between them. The session
   * calls it once at call start and `release()`s it at hangup. Without it, `transcribe` is used per utterance.
   */
  forCall?(call?: CallAudio): CallSpeechToText;
  /**
   * Optional: whether utterance audio at `sampleRate` (e.g. a phone line's 8 kHz) is taken as it arrives. Then a
   * caller at that rate is not resampled (when the VAD scores that rate too); without it, utterances come at 16 kHz.
   */
  takesSampleRate?(sampleRate: number): boolean;
  /** The provider's name for start-up lines, turn reports and metrics (`deepgram`, `local`, …). */
  readonly provider?: string;
  /** What the recogniser can do; absent: a streaming recogniser of 16 kHz PCM with interims. */
  readonly capabilities?: RecognitionCapabilities;
}

/** What a call's recognizer may want to know about the caller's line. */
export interface CallAudio {
  /** The caller's sample rate as it arrives; known once audio has arrived (before any utterance). */
  callerSampleRate(): number | undefined;
  /** Optional: the transport says the audio came through a telephone network (`Transport.telephoneBand`). */
  telephoneBand?(): boolean;
}

/** A `SpeechToText` for one call's utterances; `release()` at hangup frees what it holds. */
export interface CallSpeechToText extends SpeechToText {
  /**
   * Frees what the call holds. May resolve with the credits the speech service billed for the call's recognition
   * when it reports that only as the call's socket closes (Shoal's `/v1/listen`: `shoal_charge` in `Metadata`).
   */
  release(): void | Promise<number | undefined>;
  /**
   * Optional: what the caller is expected to say from the next utterance on (`undefined`: anything), set
   * by the session after each agent reply. Recognizers that support it listen for those answers.
   */
  expect?(expectations: readonly Expectation[] | undefined): void;
}

/** Lets a driver with a virtual clock know when engine work is in flight (`shoal talk --fast`). */
export interface WorkOptions {
  /** Wraps each engine call the implementation makes; implementations that ignore it are still correct. */
  track?<T>(work: Promise<T>): Promise<T>;
}

export interface SpeechRequest {
  /** Text deltas of one agent reply; completion ends the reply. */
  text$: Observable<string>;
  /** The call's playout rate (`Transport.playoutRate`): a synthesiser that can speak at this rate should. */
  sampleRate?: number;
  /** Called with the credits the speech service billed for part of the reply, when it reports a charge. */
  charged?(credits: number): void;
}

/** What `TextToSpeech.prepare()` knows of the coming reply. */
export type SpeechPreparation = Pick<SpeechRequest, 'sampleRate'>;

/** A word of a reply, timed from the start of that reply's audio. */
export interface SpokenWord {
  word: string;
  startMs: number;
  endMs: number;
}

/** A piece of synthesised audio and the words it holds (timed from the reply's start), when the provider says. */
export interface SpokenAudio {
  frame: AudioFrame;
  words?: SpokenWord[];
  /** The provider that synthesised it (`TextToSpeech.provider`), set by adapters and by failover. */
  provider?: string;
}

/**
 * Text deltas in, agent audio out; unsubscribing cancels at once (at the provider too, when it can: Cartesia's
 * `cancel`, ElevenLabs' `close_context`). Errors are `ProviderError`s where a provider is at fault.
 */
export interface TextToSpeech {
  speak(request: SpeechRequest): Observable<SpokenAudio>;
  /** Hint that a reply is coming soon (the caller started speaking): open connections now, under the active trace context. */
  prepare?(request?: SpeechPreparation): void;
  /** The provider's name for start-up lines, turn reports and metrics (`cartesia`, `service`, …). */
  readonly provider?: string;
  /** What the synthesiser can do; absent: streaming input, word timings when it has them, any rate. */
  readonly capabilities?: SynthesisCapabilities;
}

/** How audio is encoded on a provider's wire: 16-bit linear PCM, or G.711 mu-law (a phone line's own). */
export type AudioEncoding = 'pcm16' | 'mulaw';

/** What a recogniser can do (`SpeechToText.capabilities`). */
export interface RecognitionCapabilities {
  /** Takes frames as they come; false: it hears whole VAD segments (then `utterance$` is sent at its end). */
  streaming: boolean;
  /** Gives interim transcripts before the final (low-latency mode speculates on them). */
  interimResults: boolean;
  /** Gives word start/end times (`TranscriptEvent.words`). */
  wordTimings: boolean;
  /** The sample rates it takes as they arrive (a phone caller's 8000 is sent without resampling). */
  sampleRates: readonly number[];
  /** The encodings it takes on its wire. */
  encodings: readonly AudioEncoding[];
  /** Listens harder for the call's expectations (Deepgram's `keyterm`, a Whisper `prompt`). */
  keywordBoosting: boolean;
  /** Gives its own end-of-speech signal (`TranscriptEvent.endOfSpeech`). */
  endOfSpeech: boolean;
}

/** What a synthesiser can do (`TextToSpeech.capabilities`). */
export interface SynthesisCapabilities {
  /** Takes text deltas as the dialogue streams them; false: it is fed sentence by sentence. */
  streamingInput: boolean;
  /** Timings the provider gives (character timings are turned into `SpokenWord`s by the adapter). */
  timings: 'word' | 'character' | 'none';
  /** The output sample rates it speaks at without conversion (`SpeechRequest.sampleRate` picks one). */
  sampleRates: readonly number[];
  encodings: readonly AudioEncoding[];
  /** Can be stopped at the provider mid-utterance (barge-in), not only by dropping its audio. */
  cancel: boolean;
}

/** A tool the agent called during a reply, with what it returned (or why it failed). */
export interface ToolExchange {
  /** The model's id of the call (e.g. `call_abc`), used to pair the call with its result. */
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  result?: unknown;
  /** Set when the tool threw or its arguments were invalid; the model was told this instead of a result. */
  error?: string;
}

export interface ConversationMessage {
  /** `tool`: a tool call and its result, in the order it happened within the agent's reply. */
  role: 'user' | 'agent' | 'tool';
  /** What was said; for a `tool` entry, the result (or error) as given back to the model. */
  text: string;
  /** True when the agent was interrupted and `text` holds only what was played. */
  interrupted?: boolean;
  /** Present on `tool` entries. */
  tool?: ToolExchange;
  /** On `user` entries heard with expectations: false when the words came out outside them (see `DialogueInput.expected`). */
  expected?: boolean;
}

export type DialogueOutput =
  | { type: 'text'; delta: string }
  | { type: 'tool-call'; id?: string; name: string; arguments: Record<string, unknown>; result?: unknown; error?: string }
  | { type: 'end-call'; reason?: string }
  /** Sets what the caller is expected to say next (e.g. from an LLM tool); overrides `Dialogue.expectations`. */
  | { type: 'expect'; expectations: readonly Expectation[] };

/**
 * A reply started on an interim transcript, before the caller's turn was final (low-latency mode). It may
 * stream text, but actions with side effects must wait for `kept()`: true when the final transcript confirmed
 * the reply, false when it was discarded (then the reply is also unsubscribed).
 */
export interface SpeculativeTurn {
  /** Resolves once the reply's fate is known; waiting on it is not counted as work in flight. */
  kept(): Promise<boolean>;
}

export interface DialogueInput {
  history: readonly ConversationMessage[];
  userText: string;
  /**
   * Set when the turn was recognised with expectations: false when the words came out as open vocabulary,
   * outside what was expected (a recognition more likely wrong), so that a dialogue can confirm before acting
   * on them. Absent for keyed entries, open-vocabulary turns and recognizers that do not say.
   */
  expected?: boolean;
  /** Present when the reply is speculative (see `SpeculativeTurn`); absent when the turn is final. */
  speculative?: SpeculativeTurn;
  /** The call this turn belongs to (the session's trace id), for tools that record or act on it. */
  callId?: string;
}

/** The pluggable step: conversation so far + final transcript in, text deltas out. Unsubscribing cancels it. */
export interface Dialogue {
  readonly name: string;
  /** Optional first line spoken when a call connects. */
  greeting?(): string | undefined;
  respond(input: DialogueInput): Observable<DialogueOutput>;
  /** Caller silence after the agent stops speaking before `reprompt` (overrides the agent's `userSilenceTimeoutMs`). */
  readonly repromptAfterMs?: number;
  /** Called for silence timeouts; returns the reprompt line. */
  reprompt?(history: readonly ConversationMessage[]): string | undefined;
  /**
   * What the caller is expected to say in the next turn, asked after each agent reply (and the greeting).
   * Recognition and endpointing use it; `undefined` or `[]` means open vocabulary.
   */
  expectations?(history: readonly ConversationMessage[]): readonly Expectation[] | undefined;
  /**
   * Who answered an outbound phone call, once the carrier's machine detection knows (`human`, `machine_end_beep`, …).
   * What it returns is said at once (e.g. a voicemail message ending with `end-call`); `undefined` changes nothing.
   */
  answeredBy?(answeredBy: string, history: readonly ConversationMessage[]): Observable<DialogueOutput> | undefined;
}
