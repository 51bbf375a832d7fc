/**
 * The bench's ceiling: a bare node:http server that answers the exact bytes Antenna
 * answered (body, content-type, etag, cache-control, vary), looked up by path and
 * query, with a 304 for a matching If-None-Match. It does no other work, so it shows
 * what Node's HTTP stack can do on this machine with these payloads.
 *
 * Started by bench/run.mjs through fork(): argv[2] is a manifest JSON file,
 * [{url, file, headers}], whose bodies are files beside it. Replies {port} over IPC
 * once listening.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import process from 'node:process';

const manifestFile = process.argv[2];
if (!manifestFile) {
  console.error('usage: ceiling-server.mjs <manifest.json> (started by bench/run.mjs)');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
const routes = new Map();
for (const entry of manifest) {
  const body = readFileSync(join(dirname(manifestFile), entry.file));
  routes.set(entry.url, {
    body,
    etag: entry.headers.etag,
    headers: { ...entry.headers, 'content-length': body.length },
  });
}

function matches(ifNoneMatch, etag) {
  if (ifNoneMatch === etag) return true;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

const server = createServer((request, response) => {
  const route = routes.get(request.url);
  if (!route) {
    response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    response.end('{"status":404,"code":"not_found","message":"not in the ceiling manifest"}');
    return;
  }
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && route.etag && matches(ifNoneMatch, route.etag)) {
    response.writeHead(304, { etag: route.etag, 'cache-control': route.headers['cache-control'] ?? 'no-cache' });
    response.end();
    return;
  }
  response.writeHead(200, route.headers);
  response.end(route.body);
});
// Same keep-alive behaviour as Fastify's defaults, so neither side pays extra reconnects.
server.keepAliveTimeout = 72_000;

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port });
  else console.log(`ceiling server listening on http://127.0.0.1:${port}`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', () => process.exit(0));
