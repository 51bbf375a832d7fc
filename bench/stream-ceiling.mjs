/**
 * The streaming ceiling: a bare node:http server piping fs.createReadStream of one
 * file (argv[2]) to every GET. Started by bench/management.mjs through fork(); replies
 * {port} over IPC once listening.
 */
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

const file = process.argv[2];
const { size } = statSync(file);
const server = createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'video/x-matroska', 'content-length': size, 'accept-ranges': 'bytes' });
  createReadStream(file).pipe(response);
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
process.on('SIGTERM', () => process.exit(0));
process.on('disconnect', () => process.exit(0));
