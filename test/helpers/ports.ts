import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Ports are picked below the kernel's ephemeral range: a port the OS hands out for listen(0) comes
 * from that range, and so does the local port of every outgoing connection, so between our check
 * and the collector's bind some client socket could take it (seen: "bind: address already in use"
 * when e2e suites ran in parallel).
 */
const EPHEMERAL_LOW = ((): number => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
})();
const LOWEST = Math.min(20_000, EPHEMERAL_LOW - 2_000);

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * Each jest worker draws from its own slice of the range: a test that restarts a sidecar on its
 * ports leaves them free for a moment, and a test file running beside it in another worker must
 * not pick one of them then.
 */
const SLICES = 4;
const WORKER_SLICE = (Number(process.env.JEST_WORKER_ID ?? '1') - 1) % SLICES;
const SLICE_SIZE = Math.floor((EPHEMERAL_LOW - LOWEST) / SLICES);

/** A port that was free a moment ago, outside the range outgoing connections draw from. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOWEST + WORKER_SLICE * SLICE_SIZE + Math.floor(Math.random() * SLICE_SIZE);
    if (await bindable(port)) return port;
  }
}
