/**
 * A "collector" that accepts TCP connections and never answers: what a hung collector or a
 * black-holing proxy looks like to the sidecar's gRPC client (connected, no HTTP/2 settings, no
 * replies), so only its deadlines and the sidecar's own timeouts get it out.
 */
import { createServer, type Socket } from 'node:net';

export interface SilentServer {
  /** Connections accepted so far (proof the sidecar really was talking to it). */
  accepted(): number;
  close(): Promise<void>;
}

export function startSilentServer(port: number): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined); // the peer resetting is expected
    socket.on('close', () => sockets.delete(socket));
    socket.resume(); // read and discard, so the client's writes never block either
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () =>
      resolve({
        accepted: () => accepted,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
