export { FileTransport, defaults as fileTransportDefaults, type FileTransportOptions } from './file-transport.js';
export { runFileCall, decodeCall, type FileCallOptions, type FileCallResult } from './run-call.js';
export { runTalk, TalkInputError, type TalkOptions } from './talk.js';
