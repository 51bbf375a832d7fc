/**
 * The ceiling of bench/reads-under-writes.mjs: bare node:http serving the bytes Antenna
 * answered (the two lists, read from the files named on the command line), with an ETag
 * that changes at every PUT (a server showing every report at once: Antenna holds a
 * list's reports for up to a second, see ResponseCache.holdsForProgress), and 304 for a
 * matching If-None-Match (and a gzip of each, made once, for clients taking gzip). No cache, no JSON, no database: what
 * this machine's loopback
 * and a Node server can carry for the same clients. Prints its port.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import process from 'node:process';
import { gzipSync } from 'node:zlib';

const [episodesFile, showsFile] = process.argv.slice(2);
const bodies = { '/api/v1/episodes': readFileSync(episodesFile), '/api/v1/shows': readFileSync(showsFile) };
// Gzipped once: a client taking gzip is sent these whatever was written (a ceiling no server that keeps its answers
// current reaches).
const gzipped = Object.fromEntries(Object.entries(bodies).map(([path, body]) => [path, gzipSync(body)]));
let version = 0;

const server = http.createServer((request, response) => {
  if (request.method === 'PUT') {
    version++;
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    return;
  }
  const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
  const body = (gzip ? gzipped : bodies)[request.url ?? ''];
  if (!body) {
    response.writeHead(404).end();
    return;
  }
  const etag = `"${request.url}-${version}${gzip ? '-gzip' : ''}"`;
  if (request.headers['if-none-match'] === etag) {
    response.writeHead(304, { etag }).end();
    return;
  }
  response
    .writeHead(200, {
      etag,
      'content-type': 'application/json',
      'content-length': body.length,
      ...(gzip ? { 'content-encoding': 'gzip' } : {}),
    })
    .end(body);
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
