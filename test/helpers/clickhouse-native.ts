/**
 * A login on ClickHouse's native (TCP) port, the one the collector's exporter uses: the client's
 * Hello packet, and the server's first answer, Hello when the login is accepted or Exception with
 * its code when it is refused. Protocol revision 54405, from before the Hello addendum, so the
 * server answers right after checking the user.
 */
import { connect } from 'node:net';

const CLIENT_HELLO = 0;
const SERVER_HELLO = 0;
const SERVER_EXCEPTION = 2;
const PROTOCOL_REVISION = 54405;

export type NativeLogin = { accepted: true } | { accepted: false; code: number; message: string };

function varUInt(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  do {
    bytes.push((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
    v = Math.floor(v / 0x80);
  } while (v > 0);
  return Buffer.from(bytes);
}

const str = (text: string): Buffer => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([varUInt(bytes.length), bytes]);
};

/** Reads a VarUInt at `offset`; undefined when the buffer ends first. */
function readVarUInt(buf: Buffer, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let i = 0; i < 10 && offset + i < buf.length; i++) {
    const byte = buf[offset + i] as number;
    value += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return { value, next: offset + i + 1 };
  }
  return undefined;
}

/** The code and text of an Exception packet, once enough of it has arrived. */
function parseException(buf: Buffer, offset: number): { code: number; message: string } | undefined {
  if (buf.length < offset + 4) return undefined;
  const code = buf.readInt32LE(offset);
  const name = readVarUInt(buf, offset + 4);
  if (!name || buf.length < name.next + name.value) return undefined;
  const text = readVarUInt(buf, name.next + name.value);
  if (!text || buf.length < text.next + text.value) return undefined;
  return { code, message: buf.subarray(text.next, text.next + text.value).toString('utf8') };
}

export function nativeLogin(port: number, user: string, password: string): Promise<NativeLogin> {
  const hello = Buffer.concat([varUInt(CLIENT_HELLO), str('dd-otlp-bridge-test'), varUInt(26), varUInt(9), varUInt(PROTOCOL_REVISION), str(''), str(user), str(password)]);
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const socket = connect({ host: '127.0.0.1', port }, () => socket.write(hello));
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to the native Hello on port ${port}`)));
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const packet = readVarUInt(received, 0);
      if (!packet) return;
      if (packet.value === SERVER_HELLO) {
        socket.destroy();
        resolve({ accepted: true });
        return;
      }
      if (packet.value !== SERVER_EXCEPTION) {
        socket.destroy();
        reject(new Error(`unexpected native packet ${packet.value}`));
        return;
      }
      const exception = parseException(received, packet.next);
      if (!exception) return;
      socket.destroy();
      resolve({ accepted: false, ...exception });
    });
    socket.on('close', () => reject(new Error(`native connection closed before an answer (${received.length} bytes)`)));
  });
}
