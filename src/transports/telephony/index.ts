export { TelephonyTransport, type TelephonyCallInfo } from './telephony-transport.js';
export { TelephonyEndpoint, MediaStreamMessageError, telephonyEndpointDefaults, type TelephonyEndpointOptions } from './telephony-endpoint.js';
export { mediaStream, parseInboundMessage, type InboundMessage, type OutboundMessage } from './media-stream-messages.js';
export { busyTone, sendBusyLine, defaults as busyLineDefaults, type BusyLineOptions } from './busy-line.js';
export { MediaStreamCaller, type MediaStreamCallerOptions, type HeardAudio } from './media-stream-caller.js';
