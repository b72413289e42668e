export { TelephonyTransport, telephonyTransportDefaults, type TelephonyCallInfo } from './telephony-transport.js';
export {
  TelephonyEndpoint,
  MediaStreamMessageError,
  StreamRefusedError,
  telephonyEndpointDefaults,
  type TelephonyEndpointOptions,
} from './telephony-endpoint.js';
export { mediaStream, parseInboundMessage, type InboundMessage, type OutboundMessage } from './media-stream-messages.js';
export { busyTone, sendBusyLine, defaults as busyLineDefaults, type BusyLineOptions } from './busy-line.js';
export { mediaFormat, decodeMedia, encodeMedia, UnsupportedMediaFormatError, type MediaFormat } from './media-format.js';
export { StreamTokens, streamTokenDefaults, type StreamTokenOptions } from './stream-tokens.js';
export * from './carriers/index.js';
export { CarrierEndpoints, type CarrierEndpointsOptions } from './carrier-endpoints.js';
export { MediaStreamCaller, type MediaStreamCallerOptions, type HeardAudio } from './media-stream-caller.js';
