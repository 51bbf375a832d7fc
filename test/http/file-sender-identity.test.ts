/**
 * The file sender reads only the file that was checked: a file swapped at the checked
 * path between the check and send()'s own open is cut off before its first byte.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendKnownFile } from '../../src/api/file-sender.js';
import { tempDir } from '../support/temp-library.js';

let dir: string;
const app = Fastify();

const identityOf = (path: string) => {
  const stat = statSync(path, { bigint: true });
  return `${stat.dev}:${stat.ino}`;
};

beforeAll(async () => {
  dir = tempDir('antenna-sender-');
  writeFileSync(join(dir, 'film.mkv'), 'the film that was checked');
  writeFileSync(join(dir, 'secret.mkv'), 'SECRET-BYTES '.repeat(1000));
  // As if the check had been made of film.mkv, and secret.mkv had been swapped in at its path since.
  app.get('/swapped', (request, reply) =>
    sendKnownFile(
      request,
      reply,
      join(dir, 'secret.mkv'),
      'no-cache',
      'gone',
      'film.mkv',
      identityOf(join(dir, 'film.mkv')),
    ),
  );
  app.get('/same', (request, reply) =>
    sendKnownFile(
      request,
      reply,
      join(dir, 'film.mkv'),
      'no-cache',
      'gone',
      'film.mkv',
      identityOf(join(dir, 'film.mkv')),
    ),
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app.close();
});

describe('sendKnownFile with the identity of the file checked', () => {
  it('sends the file checked', async () => {
    const address = app.server.address() as { port: number };
    const answer = await fetch(`http://127.0.0.1:${address.port}/same`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('the film that was checked');
  });

  it('sends nothing of another file found at the path', async () => {
    const address = app.server.address() as { port: number };
    const body = await fetch(`http://127.0.0.1:${address.port}/swapped`)
      .then((answer) => answer.text())
      .catch(() => '');
    expect(body).not.toContain('SECRET');
  });
});
