/**
 * A stand-in OTLP/gRPC logs endpoint for unit tests, on grpc-js's server: an independent gRPC
 * implementation to check our client against (the real collector is the e2e tests' job). It
 * answers with whatever the script says.
 */
import * as grpc from '@grpc/grpc-js';

export type Script = (body: Buffer, md: grpc.Metadata) => { error?: Partial<grpc.StatusObject>; response?: Buffer };

export interface FakeCall {
  body: Buffer;
  md: grpc.Metadata;
  /** the call's deadline (grpc-timeout) as it arrived, in ms from then */
  deadlineMs: number;
}

export interface FakeCollector {
  port: number;
  calls: FakeCall[];
  /** at once, calls in flight fail */
  stop(): void;
  /** GOAWAY, then close once calls in flight are answered */
  drain(): Promise<void>;
}

export async function fakeCollector(script: Script, port = 0): Promise<FakeCollector> {
  const server = new grpc.Server();
  const calls: FakeCall[] = [];
  const handler: grpc.handleUnaryCall<Buffer, Buffer> = (call, callback) => {
    calls.push({ body: call.request, md: call.metadata, deadlineMs: Number(call.getDeadline()) - Date.now() });
    const { error, response } = script(call.request, call.metadata);
    if (error) callback(error as grpc.ServiceError);
    else callback(null, response ?? Buffer.alloc(0));
  };
  const raw = { path: '', requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b };
  server.addService(
    {
      logs: { ...raw, path: '/opentelemetry.proto.collector.logs.v1.LogsService/Export' },
    } as unknown as grpc.ServiceDefinition,
    { logs: handler },
  );
  const bound = await new Promise<number>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))));
  return { port: bound, calls, stop: () => server.forceShutdown(), drain: () => new Promise<void>((r) => server.tryShutdown(() => r())) };
}
