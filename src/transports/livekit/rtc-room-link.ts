import { BehaviorSubject, ReplaySubject, Subject, distinctUntilChanged, skip } from 'rxjs';
import type { Participant, RemoteParticipant, RemoteTrack } from '@livekit/rtc-node';
import { createFrame, type AudioFrame } from '../../audio/frame.js';
import { importOptional } from '../../optional/index.js';
import { isCallerCandidate, type CallerSelection } from './caller-selection.js';
import type { ParticipantKindName, RoomLink, RoomParticipant } from './room-link.js';

export interface ConnectRoomOptions {
  /** LiveKit server URL, e.g. wss://example.livekit.cloud */
  url: string;
  /** Join token for the agent (see `createAgentToken`, or the token of a dispatch assignment). */
  token: string;
  /** Identity of the caller to listen to; shorthand for `caller: { identity }`. */
  callerIdentity?: string;
  /** Which participant is the caller; default: the first standard, SIP or connector participant to join. */
  caller?: CallerSelection;
  /** Rate of the agent's published track; WebRTC encodes Opus at 48 kHz and the SDK resamples from this. */
  outputSampleRate?: number;
  /** How much agent audio the room may queue before `publish` waits, in ms. */
  queueMs?: number;
}

export const defaults = {
  /** What LiveKit's agents publish TTS audio at. */
  outputSampleRate: 24000,
  queueMs: 400,
  inputSampleRate: 16000,
} as const;

const kindNames: Record<number, ParticipantKindName> = { 0: 'standard', 1: 'ingress', 2: 'egress', 3: 'sip', 4: 'agent', 5: 'connector', 6: 'bridge' };

function describe(participant: Participant): RoomParticipant {
  return { identity: participant.identity, name: participant.name, kind: kindNames[participant.kind] ?? 'unknown', attributes: { ...participant.attributes } };
}

/** Joins a LiveKit room as the agent: finds the caller, subscribes to their audio and publishes the agent's voice track. */
export async function connectRoom(options: ConnectRoomOptions): Promise<RoomLink> {
  const rtc = await importOptional<typeof import('@livekit/rtc-node')>('@livekit/rtc-node');
  const selection: CallerSelection = options.caller ?? (options.callerIdentity ? { identity: options.callerIdentity } : {});
  const outputSampleRate = options.outputSampleRate ?? defaults.outputSampleRate;
  const room = new rtc.Room();
  const callerSubject = new ReplaySubject<RoomParticipant>(1);
  const callerAudio = new Subject<AudioFrame>();
  const callerLeft = new ReplaySubject<string>(1);
  const data = new Subject<unknown>();
  const dtmf = new Subject<string>();
  const reconnecting = new BehaviorSubject(false);
  let caller: RemoteParticipant | undefined;
  let callerTrackId: string | undefined;
  let ended = false;

  const pickCaller = (participant: RemoteParticipant): void => {
    if (caller || ended || !isCallerCandidate(describe(participant), selection)) return;
    caller = participant;
    callerSubject.next(describe(participant));
    for (const publication of participant.trackPublications.values()) {
      if (publication.track && publication.kind === rtc.TrackKind.KIND_AUDIO) listen(publication.track as RemoteTrack);
    }
  };
  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    for (const subject of [callerSubject, callerAudio, data, dtmf, reconnecting]) subject.complete();
    callerLeft.next(reason);
    callerLeft.complete();
  };
  const listen = (track: RemoteTrack): void => {
    if (callerTrackId) return; // one microphone per caller
    callerTrackId = track.sid;
    pump(track).catch((error: unknown) => callerAudio.error(error));
  };
  const pump = async (track: RemoteTrack): Promise<void> => {
    const stream = new rtc.AudioStream(track, { sampleRate: defaults.inputSampleRate, numChannels: 1 });
    const reader = stream.getReader();
    for (let next = await reader.read(); !next.done && !ended; next = await reader.read()) {
      const frame = next.value;
      const durationMs = (frame.samplesPerChannel * 1000) / frame.sampleRate;
      callerAudio.next(createFrame(frame.data, frame.sampleRate, performance.now() - durationMs));
    }
    await reader.cancel();
  };

  room
    .on(rtc.RoomEvent.ParticipantConnected, pickCaller)
    .on(rtc.RoomEvent.TrackSubscribed, (track, _publication, participant) => {
      pickCaller(participant);
      if (track.kind === rtc.TrackKind.KIND_AUDIO && participant === caller) listen(track);
    })
    .on(rtc.RoomEvent.ParticipantAttributesChanged, (_changed, participant) => {
      if (participant === caller && !ended) callerSubject.next(describe(participant));
    })
    .on(rtc.RoomEvent.ParticipantDisconnected, (participant) => {
      if (participant === caller) end('caller left the room');
    })
    .on(rtc.RoomEvent.Reconnecting, () => reconnecting.next(true))
    .on(rtc.RoomEvent.Reconnected, () => reconnecting.next(false))
    .on(rtc.RoomEvent.Disconnected, () => end('room disconnected'))
    .on(rtc.RoomEvent.DtmfReceived, (_code, digit, participant) => {
      if (participant === caller) dtmf.next(digit);
    })
    .on(rtc.RoomEvent.DataReceived, (payload, participant) => {
      if (!participant || participant !== caller) return;
      const text = new TextDecoder().decode(payload);
      try {
        data.next(JSON.parse(text));
      } catch {
        data.next(text);
      }
    });

  await room.connect(options.url, options.token, { autoSubscribe: true, dynacast: false });
  const local = room.localParticipant!;
  const source = new rtc.AudioSource(outputSampleRate, 1, options.queueMs ?? defaults.queueMs);
  const track = rtc.LocalAudioTrack.createAudioTrack('agent-voice', source);
  const publication = await local.publishTrack(track, new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE }));
  for (const participant of room.remoteParticipants.values()) pickCaller(participant);

  return {
    roomName: room.name ?? '',
    agentIdentity: local.identity,
    caller$: callerSubject.asObservable(),
    callerAudio$: callerAudio.asObservable(),
    callerLeft$: callerLeft.asObservable(),
    data$: data.asObservable(),
    dtmf$: dtmf.asObservable(),
    reconnecting$: reconnecting.pipe(distinctUntilChanged(), skip(1)),
    outputSampleRate,
    callerAttributes: () => ({ ...(caller?.attributes ?? {}) }),
    callerTrackId: () => callerTrackId,
    agentTrackId: () => publication.sid,
    publish: async (frame) => {
      if (frame.sampleRate !== outputSampleRate) {
        throw new RangeError(`publish expects ${outputSampleRate} Hz audio, got ${frame.sampleRate} Hz`);
      }
      await source.captureFrame(new rtc.AudioFrame(frame.samples, frame.sampleRate, 1, frame.samples.length));
    },
    clearQueue: () => source.clearQueue(),
    queuedMs: () => source.queuedDuration,
    sendData: async (message) => {
      const payload = new TextEncoder().encode(JSON.stringify(message));
      await local.publishData(payload, { reliable: true });
    },
    setAgentAttributes: (attributes) => local.setAttributes(attributes),
    openTextStream: async ({ topic, attributes, senderIdentity }) => {
      const writer = await local.streamText({ topic, attributes, senderIdentity });
      return { write: (text) => writer.write(text), close: () => writer.close() };
    },
    disconnect: async () => {
      end('agent hung up');
      await source.close();
      await room.disconnect();
    },
  };
}
