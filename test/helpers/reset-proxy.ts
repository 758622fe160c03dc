/**
 * A TCP proxy in front of the collector that resets every connection through it on a fixed
 * period (RST, as a load balancer recycling connections or a flaky network would): calls in
 * flight fail mid-way and the sidecar's gRPC client has to connect again.
 */
import { connect, createServer, type Socket } from 'node:net';

export interface ResetProxy {
  /** Connections reset so far (proof the fault really happened). */
  resets(): number;
  close(): Promise<void>;
}

export function startResetProxy(listenPort: number, targetPort: number, everyMs: number): Promise<ResetProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let resets = 0;
  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = (): void => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) socket.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const timer = setInterval(() => {
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      resets++;
      for (const socket of pair) socket.resetAndDestroy();
    }
  }, everyMs);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenPort, '127.0.0.1', () =>
      resolve({
        resets: () => resets,
        close: () =>
          new Promise<void>((done) => {
            clearInterval(timer);
            for (const pair of pairs) for (const socket of pair) socket.destroy();
            server.close(() => done());
          }),
      }),
    );
  });
}
