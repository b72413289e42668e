import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSpan {
  traceId: string;
  name: string;
  attributes?: { key: string }[];
}
export interface OtlpExport {
  resourceSpans: { resource: { attributes: { key: string; value: { stringValue?: string } }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[];
}

/** A local OTLP/HTTP collector: keeps every trace export it receives (JSON encoding decoded, protobuf kept raw). */
export function startCollector(): Promise<{ server: Server; url: string; exports: OtlpExport[]; raw: { contentType: string; body: Buffer }[] }> {
  const exports: OtlpExport[] = [];
  const raw: { contentType: string; body: Buffer }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = request.headers['content-type'] ?? '';
      if (request.url === '/v1/traces') {
        raw.push({ contentType, body });
        if (contentType.startsWith('application/json')) exports.push(JSON.parse(body.toString('utf8')) as OtlpExport);
      }
      response.writeHead(request.url === '/v1/traces' ? 200 : 404, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, raw })),
  );
}

