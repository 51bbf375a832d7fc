/** A TCP port free on 127.0.0.1 right now, for a server a bench starts (shared by the bench scripts). */
import net from 'node:net';

export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
