import { ReplaySubject, Subject } from 'rxjs';
import type { RemoteParticipant, RemoteTrack } from '@livekit/rtc-node';
import { createFrame, type AudioFrame } from '../../audio/frame.js';
import type { RoomLink } from './room-link.js';
import { importOptional } from '../../optional/index.js';

export interface ConnectRoomOptions {
  /** LiveKit server URL, e.g. wss://example.livekit.cloud */
  url: string;
  /** Join token for the agent (see `createAgentToken`). */
  token: string;
  /** Identity of the caller to listen to; default: the first remote participant that publishes audio. */
  callerIdentity?: string;
  outputSampleRate?: number;
  /** How much agent audio the room may queue before `publish` waits, in ms. */
  queueMs?: number;
}

export const defaults = {
  outputSampleRate: 24000,
  queueMs: 400,
  inputSampleRate: 16000,
} as const;

/** Joins a LiveKit room as the agent: subscribes to the caller's audio and publishes the agent's voice track. */
export async function connectRoom(options: ConnectRoomOptions): Promise<RoomLink> {
  const rtc = await importOptional<typeof import('@livekit/rtc-node')>('@livekit/rtc-node');
  const outputSampleRate = options.outputSampleRate ?? defaults.outputSampleRate;
  const room = new rtc.Room();
  const callerAudio = new Subject<AudioFrame>();
  const callerLeft = new ReplaySubject<string>(1);
  const data = new Subject<unknown>();
  const dtmf = new Subject<string>();
  let caller: RemoteParticipant | undefined;
  let ended = false;

  const isCaller = (participant: RemoteParticipant): boolean => {
    if (options.callerIdentity) return participant.identity === options.callerIdentity;
    caller ??= participant;
    return caller === participant;
  };
  const end = (reason: string): void => {
    if (ended) return;
    ended = true;
    callerAudio.complete();
    callerLeft.next(reason);
    callerLeft.complete();
    data.complete();
    dtmf.complete();
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
    .on(rtc.RoomEvent.TrackSubscribed, (track, _publication, participant) => {
      if (track.kind !== rtc.TrackKind.KIND_AUDIO || !isCaller(participant)) return;
      caller = participant;
      pump(track).catch((error: unknown) => callerAudio.error(error));
    })
    .on(rtc.RoomEvent.ParticipantDisconnected, (participant) => {
      if (participant === caller) end('caller left the room');
    })
    .on(rtc.RoomEvent.Disconnected, () => end('room disconnected'))
    .on(rtc.RoomEvent.DtmfReceived, (_code, digit, participant) => {
      if (isCaller(participant)) dtmf.next(digit);
    })
    .on(rtc.RoomEvent.DataReceived, (payload, participant) => {
      if (!participant || !isCaller(participant)) return;
      const text = new TextDecoder().decode(payload);
      try {
        data.next(JSON.parse(text));
      } catch {
        data.next(text);
      }
    });

  await room.connect(options.url, options.token, { autoSubscribe: true, dynacast: false });
  const source = new rtc.AudioSource(outputSampleRate, 1, options.queueMs ?? defaults.queueMs);
  const track = rtc.LocalAudioTrack.createAudioTrack('agent-voice', source);
  await room.localParticipant!.publishTrack(
    track,
    new rtc.TrackPublishOptions({ source: rtc.TrackSource.SOURCE_MICROPHONE }),
  );

  return {
    callerAudio$: callerAudio.asObservable(),
    callerLeft$: callerLeft.asObservable(),
    data$: data.asObservable(),
    dtmf$: dtmf.asObservable(),
    outputSampleRate,
    callerAttributes: () => ({ ...(caller?.attributes ?? {}) }),
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
      await room.localParticipant!.publishData(payload, { reliable: true });
    },
    disconnect: async () => {
      end('agent hung up');
      await source.close();
      await room.disconnect();
    },
  };
}
