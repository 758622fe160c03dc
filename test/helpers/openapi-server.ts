/**
 * A stand-in for the ClickStack management API that holds every request to the published HyperDX
 * OpenAPI document: the path must be one of its operations (for Managed ClickStack, the Cloud
 * mount `/v1/organizations/<org>/services/<service>/clickstack/…` of the document's `/api/v2/…`
 * paths, with this server's org and service), the method one the path declares, the credentials
 * the deployment's (Basic key id:secret, or Bearer personal key), the query parameters declared
 * ones of the declared types, and the JSON body valid for the operation's request schema. A
 * request that breaks any of these gets the real API's answer (401 plain text, 404, 400
 * `{"message": "Body validation failed: …"}`; `dashboards/validate` answers a body its schema
 * refuses with 200 and `valid: false`, as the document says). Valid requests are served from an in-memory store,
 * so create → get → list → update → delete round-trips (dashboards, alerts, saved searches), and every reply of ours is checked
 * against the operation's response schema (`problems` collects any that is not).
 * Every request is recorded, whatever its fate.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadDocument, operations, SchemaValidator, type Operation } from '../../tools/src/stack-api/openapi';

export type ServerAuth = { kind: 'cloud'; org: string; service: string; keyId: string; keySecret: string } | { kind: 'oss'; apiKey: string };

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  /** The document's operation the request resolved to, if any. */
  operationId: string | undefined;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
  status: number;
}

export interface CannedReply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface OpenApiServer {
  /** What a client is given as its base URL (the Cloud one ends in /v1, as api.clickhouse.cloud/v1). */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Replies of ours that broke the document: must stay empty. */
  problems: string[];
  /** Answer the next valid request with this instead of serving it (not checked: it may be wrong on purpose). */
  replyNext(reply: CannedReply): void;
  close(): Promise<void>;
}

export interface ServerOptions {
  auth: ServerAuth;
  /** Sources the instance has (the API's sources list). */
  sources?: Record<string, unknown>[];
  /** Largest page the server returns whatever limit is asked (the real one caps at 1000). */
  pageCap?: number;
}

const doc = loadDocument();
const validator = new SchemaValidator(doc);
const OPERATIONS = operations(doc);
const CLOUD_PATH = /^\/v1\/organizations\/([^/]+)\/services\/([^/]+)\/clickstack(\/.*)$/;
const TEAM_ID = '65f5e4a3b9e77c001a345678';

const newId = (): string => randomBytes(12).toString('hex');

const templateRegex = (template: string): RegExp => new RegExp(`^${template.replace(/\{\w+\}/g, '([^/]+)')}$`);

/** The operation behind a document path; literal templates win over `{id}` ones. */
function findOperation(method: string, path: string): { op: Operation; id: string | undefined } | 'no-path' | 'no-method' {
  const candidates = OPERATIONS.map((op) => ({ op, match: templateRegex(op.path).exec(path) }))
    .filter((c) => c.match !== null)
    .sort((a, b) => a.match!.length - b.match!.length);
  if (candidates.length === 0) return 'no-path';
  const hit = candidates.find((c) => c.op.method === method);
  return hit ? { op: hit.op, id: hit.match![1] === undefined ? undefined : decodeURIComponent(hit.match![1]) } : 'no-method';
}

/** The document path a request names, or why it names none. */
function documentPath(auth: ServerAuth, pathname: string): string | { status: number; message: string } {
  if (auth.kind === 'oss') return pathname;
  const m = CLOUD_PATH.exec(pathname);
  if (!m) return { status: 404, message: `not a ClickStack path of the Cloud API: ${pathname}` };
  if (decodeURIComponent(m[1]!) !== auth.org || decodeURIComponent(m[2]!) !== auth.service) return { status: 404, message: 'organization or service not found' };
  return `/api/v2${m[3]}`;
}

const expectedAuthorization = (auth: ServerAuth): string => (auth.kind === 'oss' ? `Bearer ${auth.apiKey}` : `Basic ${Buffer.from(`${auth.keyId}:${auth.keySecret}`).toString('base64')}`);

/** Query parameters as the document declares them, numbers read as numbers. */
function queryProblems(op: Operation, params: URLSearchParams): string[] {
  return [...params.entries()].flatMap(([name, raw]) => {
    const declared = op.parameters.find((p) => p.in === 'query' && p.name === name);
    if (!declared) return [`${name}: not a parameter of ${op.id}`];
    const value = declared.schema.type === 'integer' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
    const check = validator.validate(declared.schema, value, name);
    return check.ok ? [] : [check.errors];
  });
}

/** `schema`: the body is JSON but not what the operation's schema allows (the rest are transport problems). */
function bodyProblem(op: Operation, contentType: string | undefined, text: string): { body: unknown; problem?: string; schema?: true } {
  if (!op.requestSchema) return text === '' ? { body: undefined } : { body: text, problem: `${op.id} takes no body` };
  if (!contentType?.startsWith('application/json')) return { body: text, problem: `expected Content-Type application/json, got ${contentType}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { body: text, problem: 'body is not JSON' };
  }
  const check = validator.validate(op.requestSchema, body, 'body');
  return check.ok ? { body } : { body, problem: check.errors.replace(/\n/g, '; '), schema: true };
}

type Json = Record<string, unknown>;
type Served = [status: number, body: unknown];

interface Store {
  dashboards: Map<string, Json>;
  alerts: Map<string, Json>;
  savedSearches: Map<string, Json>;
  sources: Json[];
}

/** The server's side of HyperDX's checks that no schema can express. */
function unknownSourceIds(store: Store, body: Json): string[] {
  const tiles = (body.tiles as Json[] | undefined) ?? [];
  const filters = (body.filters as Json[] | undefined) ?? [];
  const referenced = [...tiles.map((t) => (t.config as Json | undefined)?.sourceId), ...filters.map((f) => f.sourceId)].filter((s): s is string => typeof s === 'string');
  const known = new Set(store.sources.map((s) => s.id));
  return [...new Set(referenced.filter((id) => !known.has(id)))];
}

function storedDashboard(id: string, body: Json, previous: Json | undefined): Json {
  const kept = new Set(((previous?.tiles as Json[] | undefined) ?? []).map((t) => t.id));
  return {
    ...body,
    id,
    // on create tile ids are ignored; on update a known id is kept (the document's rules)
    tiles: (body.tiles as Json[]).map((t) => ({ ...t, id: kept.has(t.id) ? t.id : newId() })),
    filters: ((body.filters as Json[] | undefined) ?? []).map((f) => ({ ...f, id: f.id ?? newId() })),
  };
}

function storedAlert(id: string, body: Json, previous: Json | undefined): Json {
  const channels = (body.channels as Json[] | undefined) ?? [body.channel as Json];
  const now = new Date().toISOString();
  return { ...body, id, teamId: TEAM_ID, state: 'OK', channel: channels[0], channels, createdAt: previous?.createdAt ?? now, updatedAt: now };
}

function storedSearch(id: string, body: Json, previous: Json | undefined): Json {
  const now = new Date().toISOString();
  return { ...body, id, teamId: TEAM_ID, createdAt: (previous?.createdAt as string | undefined) ?? now, updatedAt: now };
}

const notFound = (what: string): Served => [404, { message: `${what} not found` }];

/** validateDashboard's reply: always 200, as the document says; a refusal lists its reasons. */
const validation = (messages: readonly string[], body: Json): Served => [200, messages.length > 0 ? { valid: false, errors: messages.map((message) => ({ path: '', message })), normalized: null } : { valid: true, errors: [], normalized: body }];

const unknownSourcesMessage = (ids: readonly string[]): string[] => (ids.length > 0 ? [`Could not find the following source IDs: ${ids.join(', ')}`] : []);

/** A paginated list as the document's *ListResponse (data and meta). */
function page(all: Json[], query: URLSearchParams, pageCap: number): Served {
  const limit = Math.min(Number(query.get('limit') ?? 1000), pageCap);
  const offset = Number(query.get('offset') ?? 0);
  return [200, { data: all.slice(offset, offset + limit), meta: { total: all.length, limit, offset } }];
}

/** get and delete of the stores by operation. */
const BY_ID: Record<string, [keyof Omit<Store, 'sources'>, string]> = {
  getDashboard: ['dashboards', 'Dashboard'],
  deleteDashboard: ['dashboards', 'Dashboard'],
  getAlert: ['alerts', 'Alert'],
  deleteAlert: ['alerts', 'Alert'],
  getSavedSearch: ['savedSearches', 'Saved search'],
  deleteSavedSearch: ['savedSearches', 'Saved search'],
};

function serve(op: Operation, id: string | undefined, query: URLSearchParams, body: Json, store: Store, pageCap: number): Served {
  const write = (map: Map<string, Json>, what: string, build: (id: string, body: Json, previous: Json | undefined) => Json, targetId: string): Served => {
    const previous = map.get(targetId);
    if (op.method === 'PUT' && !previous) return notFound(what);
    const item = build(targetId, body, previous);
    map.set(targetId, item);
    return [200, { data: item }];
  };
  switch (op.id) {
    case 'listSources':
      return [200, { data: store.sources }];
    case 'listDashboards':
      return [200, { data: [...store.dashboards.values()] }];
    case 'createDashboard':
    case 'updateDashboard': {
      const [refusal] = unknownSourcesMessage(unknownSourceIds(store, body));
      if (refusal) return [400, { message: refusal }];
      return write(store.dashboards, 'Dashboard', storedDashboard, id ?? newId());
    }
    case 'validateDashboard':
      return validation(unknownSourcesMessage(unknownSourceIds(store, body)), body);
    case 'createAlert':
    case 'updateAlert':
      if (body.channel === undefined && body.channels === undefined) return [400, { message: 'Body validation failed: at least one of "channel" or "channels" must be provided' }];
      return write(store.alerts, 'Alert', storedAlert, id ?? newId());
    case 'listAlerts':
      return page([...store.alerts.values()], query, pageCap);
    case 'createSavedSearch':
    case 'updateSavedSearch':
      if (!store.sources.some((s) => s.id === body.sourceId)) return [400, { message: `Source ${String(body.sourceId)} not found` }];
      return write(store.savedSearches, 'Saved search', storedSearch, id ?? newId());
    case 'listSavedSearches':
      return page([...store.savedSearches.values()], query, pageCap);
    case 'getDashboard':
    case 'getAlert':
    case 'getSavedSearch': {
      const [map, what] = BY_ID[op.id]!;
      const item = store[map].get(id!);
      return item ? [200, { data: item }] : notFound(what);
    }
    case 'deleteDashboard':
    case 'deleteAlert':
    case 'deleteSavedSearch': {
      const [map, what] = BY_ID[op.id]!;
      return store[map].delete(id!) ? [200, {}] : notFound(what);
    }
    default:
      return [501, { message: `${op.id} is not served by the test server` }];
  }
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });

export async function startOpenApiServer(options: ServerOptions): Promise<OpenApiServer> {
  const store: Store = { dashboards: new Map(), alerts: new Map(), savedSearches: new Map(), sources: options.sources ?? [] };
  const requests: RecordedRequest[] = [];
  const problems: string[] = [];
  const canned: CannedReply[] = [];
  const pageCap = options.pageCap ?? 1000;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const text = await readBody(req);
    const record: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      operationId: undefined,
      authorization: req.headers.authorization,
      contentType: req.headers['content-type'],
      body: text === '' ? undefined : text,
      status: 0,
    };
    requests.push(record);
    const send = (status: number, body: string, contentType = 'application/json', headers: Record<string, string> = {}): void => {
      record.status = status;
      res.writeHead(status, { ...headers, 'content-type': contentType }).end(body);
    };
    const sendJson = (status: number, value: unknown, op?: Operation): void => {
      const schema = op?.responseSchemas[String(status)];
      const check = schema ? validator.validate(schema, value, 'response') : { ok: true as const };
      if (!check.ok) problems.push(`${op!.id} ${status}: ${check.errors}`);
      send(status, JSON.stringify(value));
    };

    const path = documentPath(options.auth, url.pathname);
    if (typeof path !== 'string') return sendJson(path.status, { message: path.message });
    const found = findOperation(record.method, path);
    if (found === 'no-path') return sendJson(404, { message: `no operation at ${path}` });
    if (found === 'no-method') return sendJson(405, { message: `${record.method} is not an operation of ${path}` });
    const { op, id } = found;
    record.operationId = op.id;
    // before any other check, as the real API: an unauthenticated caller learns nothing else
    if (req.headers.authorization !== expectedAuthorization(options.auth)) return send(401, 'Unauthorized', 'text/plain');
    const parsed = bodyProblem(op, record.contentType, text);
    record.body = parsed.body;
    // the one operation that answers a body its schema refuses with 200 and the reasons
    if (op.id === 'validateDashboard' && parsed.schema) return sendJson(...validation(parsed.problem!.split('; '), {}), op);
    const problem = [...queryProblems(op, url.searchParams), ...(parsed.problem ? [parsed.problem] : [])].join('; ');
    if (problem) return sendJson(400, { message: `Body validation failed: ${problem}` }, op);
    const reply = canned.shift();
    if (reply) return send(reply.status, reply.body, reply.contentType, reply.headers);
    const [status, body] = serve(op, id, url.searchParams, (parsed.body ?? {}) as Json, store, pageCap);
    sendJson(status, body, op);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      problems.push(`handler failed: ${(err as Error).stack}`);
      res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${options.auth.kind === 'cloud' ? '/v1' : ''}`,
    requests,
    problems,
    replyNext: (reply) => canned.push(reply),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
