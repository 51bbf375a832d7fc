/**
 * A real HTTP receiver for webhook tests: it records each POST (headers and body) and
 * answers as `answer` says: a status, or 'hang' for a receiver that never answers.
 */
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** What the next POSTs get: a status, or 'hang'. */
  answer: number | 'hang';
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hook'): Promise<WebhookReceiver> {
  const hanging = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    answer: 204,
    close: async () => {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.received.push({
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      if (receiver.answer === 'hang') {
        hanging.add(() => response.destroy());
        return;
      }
      response.writeHead(receiver.answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
