/**
 * Client of the ClickStack management API (dashboards, alerts, sources), in either deployment:
 * - Managed ClickStack: the ClickHouse Cloud API, `{base}/organizations/<org>/services/<service>/
 *   clickstack/<resource>`, HTTP Basic with a Cloud API key id and secret;
 * - open source: the HyperDX API itself, `{base}/api/v2/<resource>`, Bearer personal API key.
 * Both serve the operations of the HyperDX OpenAPI document; the Cloud API mounts its `/api/v2`
 * paths under `/clickstack`. Every request body is checked against the document before it is
 * sent, and every reply before it is returned, so neither side's drift goes unnoticed.
 */
import { STATUS_CODES } from 'node:http';
import { loadDocument, operations, SchemaValidator, type Operation } from './openapi';
import type { Alert, AlertRequest, Dashboard, DashboardFilter, DashboardValidation, Envelope, ListEnvelope, SavedSearch, SavedSearchRequest, Source, Tile } from './types';

export type StackMode = { kind: 'cloud'; baseUrl: string; org: string; service: string; keyId: string; keySecret: string } | { kind: 'oss'; baseUrl: string; apiKey: string };

/** The request was refused before anything was sent (exit 2). */
export class InvalidRequest extends Error {
  override name = 'InvalidRequest';
}

/** The service answered with an error status; `message` is the service's own words. */
export class ServiceError extends Error {
  override name = 'ServiceError';
  constructor(
    readonly status: number,
    readonly serviceMessage: string,
  ) {
    super(`${status} ${STATUS_CODES[status] ?? ''}`.trim() + (serviceMessage ? `: ${serviceMessage}` : ''));
  }
}

/** The reply is not what the document promises. */
export class InvalidResponse extends Error {
  override name = 'InvalidResponse';
}

interface Resources {
  dashboards: Dashboard;
  alerts: Alert;
  'saved-searches': SavedSearch;
  sources: Source;
}

/** Ids are optional: a create takes none (FilterInput, TileInput), an update keeps the ones it sends. */
export type DashboardRequest = Omit<Dashboard, 'id' | 'tiles' | 'filters'> & {
  name: string;
  tiles: (Omit<Tile, 'id'> & { id?: string })[];
  filters?: (Omit<DashboardFilter, 'id'> & { id?: string })[];
};

interface RequestBodies {
  dashboards: DashboardRequest;
  alerts: AlertRequest;
  'saved-searches': SavedSearchRequest;
}

export type RequestBody = RequestBodies[keyof RequestBodies];

export type ResourceName = keyof Resources;
export type Action = 'create' | 'list' | 'get' | 'update' | 'delete';

/** The document's operationIds behind each command (saved searches: for log monitors, issue 27). */
export const OPERATION_IDS: { [R in ResourceName]: Partial<Record<Action, string>> } = {
  dashboards: { create: 'createDashboard', list: 'listDashboards', get: 'getDashboard', update: 'updateDashboard', delete: 'deleteDashboard' },
  alerts: { create: 'createAlert', list: 'listAlerts', get: 'getAlert', update: 'updateAlert', delete: 'deleteAlert' },
  'saved-searches': { create: 'createSavedSearch', list: 'listSavedSearches', get: 'getSavedSearch', update: 'updateSavedSearch', delete: 'deleteSavedSearch' },
  sources: { list: 'listSources' },
};

/** Every path of the document starts here; it is what the Cloud API replaces with `/clickstack`. */
const OSS_PREFIX = '/api/v2';

const fillPath = (template: string, id: string | undefined): string =>
  template.replace(/\{(\w+)\}/g, (_m, name: string) => {
    if (id === undefined) throw new InvalidRequest(`${template} needs the ${name}`);
    return encodeURIComponent(id);
  });

export function operationUrl(mode: StackMode, op: Pick<Operation, 'path'>, id?: string, query: Record<string, number> = {}): string {
  const path = fillPath(op.path, id);
  if (!path.startsWith(`${OSS_PREFIX}/`)) throw new Error(`unexpected path ${op.path} in the OpenAPI document`);
  const url = mode.kind === 'oss' ? new URL(`${mode.baseUrl}${path}`) : new URL(`${mode.baseUrl}/organizations/${encodeURIComponent(mode.org)}/services/${encodeURIComponent(mode.service)}/clickstack${path.slice(OSS_PREFIX.length)}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, String(value));
  return url.toString();
}

const basicToken = (keyId: string, keySecret: string): string => Buffer.from(`${keyId}:${keySecret}`).toString('base64');

export const authorization = (mode: StackMode): string => (mode.kind === 'oss' ? `Bearer ${mode.apiKey}` : `Basic ${basicToken(mode.keyId, mode.keySecret)}`);

/** What must never reach a terminal: the secret itself and the header value that encodes it. */
export const secretsOf = (mode: StackMode): string[] => (mode.kind === 'oss' ? [mode.apiKey] : [mode.keySecret, basicToken(mode.keyId, mode.keySecret)]);

const MAX_MESSAGE = 2000;

/** The service's own words: `{"message": "…"}` (the document's Error) or a plain-text body. */
export function serviceMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { message?: unknown }).message === 'string') return (parsed as { message: string }).message;
  } catch {
    // plain text: the OSS API answers 401 that way
  }
  return body.trim().slice(0, MAX_MESSAGE);
}

const headerCount = (value: string | null): number | undefined => (value !== null && /^\d+$/.test(value.trim()) ? Number(value) : undefined);

/** Total of a paginated list: the document's `meta.total`, else an `X-Total-Count` header. */
export const totalOf = (page: ListEnvelope<unknown>, headers: Headers): number | undefined => page.meta?.total ?? headerCount(headers.get('x-total-count'));

const limitOf = (headers: Headers): string => {
  const limit = headerCount(headers.get('ratelimit-limit'));
  return limit === undefined ? '' : ` ${limit} requests per window`;
};

export interface Page {
  limit?: number;
  offset?: number;
}

export interface ListResult<T> {
  items: T[];
  /** Items on the server, when it said. */
  total: number | undefined;
  offset: number;
}

interface ApiRequest {
  id?: string;
  body?: unknown;
  query?: Record<string, number>;
}

interface Reply {
  body: unknown;
  headers: Headers;
}

export interface ClientOptions {
  mode: StackMode;
  timeoutMs?: number;
  /** Receives one line per request and reply (method, URL, status): never headers' values. */
  trace?: (line: string) => void;
  /** Receives what the operator should know even without --verbose (a rate-limit wait). */
  notice?: (line: string) => void;
  /** How the client waits before a retry (a test records the waits instead). */
  sleep?: (ms: number) => Promise<void>;
}

/** Retries of one request refused with 429; each waits as long as the server asks. */
export const RATE_LIMIT_RETRIES = 3;
/** A longer wait than this is not waited for: the 429 is reported instead. */
export const RATE_LIMIT_MAX_WAIT_S = 120;
/** When a 429 says nothing: the open-source API's window is one minute. */
const RATE_LIMIT_DEFAULT_WAIT_S = 60;

/**
 * How long a 429 asks to wait, in whole seconds (at least 1, so a reset due now is not hit
 * again at once): `RateLimit-Reset` (seconds until the window resets, as the open-source API's
 * express-rate-limit sends it), else `Retry-After` (seconds or an HTTP date; that API always
 * sends its whole window there, so it comes second), else one minute.
 */
export function rateLimitWait(headers: Headers, now = Date.now()): { seconds: number; from: string } {
  const reset = headerCount(headers.get('ratelimit-reset'));
  if (reset !== undefined) return { seconds: Math.max(1, reset), from: 'RateLimit-Reset' };
  const retryAfter = headers.get('retry-after');
  const delta = headerCount(retryAfter) ?? (retryAfter && !Number.isNaN(Date.parse(retryAfter)) ? Math.ceil((Date.parse(retryAfter) - now) / 1000) : undefined);
  if (delta !== undefined) return { seconds: Math.max(1, delta), from: 'Retry-After' };
  return { seconds: RATE_LIMIT_DEFAULT_WAIT_S, from: 'no RateLimit-Reset or Retry-After header' };
}

const causeOf = (err: unknown): string => {
  const cause = (err as { cause?: { message?: string } }).cause;
  return cause?.message ?? (err as Error).message;
};

/** Pages as large as the document allows: fewest requests against a rate limit (100/min on OSS). */
const pagingParameters = (op: Operation) => {
  const query = (name: string) => op.parameters.find((p) => p.in === 'query' && p.name === name);
  const limit = query('limit');
  return limit && query('offset') ? { pageSize: (limit.schema.maximum ?? limit.schema.default) as number | undefined } : undefined;
};

export class StackApiClient {
  private readonly mode: StackMode;
  private readonly operations: Map<string, Operation>;
  private readonly validator: SchemaValidator;
  private readonly timeoutMs: number;
  private readonly trace: ((line: string) => void) | undefined;
  private readonly notice: (line: string) => void;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: ClientOptions) {
    const doc = loadDocument();
    this.mode = options.mode;
    this.operations = new Map(operations(doc).map((op) => [op.id, op]));
    this.validator = new SchemaValidator(doc);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.trace = options.trace;
    this.notice = options.notice ?? (() => {});
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async create<R extends keyof RequestBodies>(resource: R, body: RequestBodies[R]): Promise<Resources[R] | undefined> {
    return ((await this.send(this.operation(resource, 'create'), { body })).body as Envelope<Resources[R]>).data;
  }

  async get<R extends keyof RequestBodies>(resource: R, id: string): Promise<Resources[R] | undefined> {
    return ((await this.send(this.operation(resource, 'get'), { id })).body as Envelope<Resources[R]>).data;
  }

  async update<R extends keyof RequestBodies>(resource: R, id: string, body: RequestBodies[R]): Promise<Resources[R] | undefined> {
    return ((await this.send(this.operation(resource, 'update'), { id, body })).body as Envelope<Resources[R]>).data;
  }

  async delete(resource: keyof RequestBodies, id: string): Promise<void> {
    await this.send(this.operation(resource, 'delete'), { id });
  }

  /**
   * `POST /dashboards/validate`: the server's own checks of a create body (its schema, and what
   * no schema says: that the sources exist, heatmaps read traces, …), nothing saved. A refused
   * body is a 200 with `valid: false` and the reasons.
   */
  async validateDashboard(body: DashboardRequest): Promise<DashboardValidation> {
    const op = this.operations.get('validateDashboard');
    if (!op) throw new InvalidRequest('dashboards validate is not an operation of the HyperDX OpenAPI document');
    return (await this.send(op, { body })).body as DashboardValidation;
  }

  /**
   * One page when `page` is given, else every item: pages follow `limit`/`offset` until the
   * reported total (or a short page) is reached. The server may cap a page below the asked limit,
   * so the next offset counts what arrived. Lists the document gives no paging parameters are
   * fetched in one request.
   */
  async list<R extends ResourceName>(resource: R, page?: Page): Promise<ListResult<Resources[R]>> {
    const op = this.operation(resource, 'list');
    const paging = pagingParameters(op);
    if (!paging) {
      if (page) throw new InvalidRequest(`the API does not page ${resource} (no limit/offset in the OpenAPI document); drop --limit/--offset`);
      const items = ((await this.send(op, {})).body as ListEnvelope<Resources[R]>).data ?? [];
      return { items, total: items.length, offset: 0 };
    }
    if (page) {
      const query = Object.fromEntries(Object.entries(page).filter(([, v]) => v !== undefined)) as Record<string, number>;
      const reply = await this.send(op, { query });
      const body = reply.body as ListEnvelope<Resources[R]>;
      return { items: body.data ?? [], total: totalOf(body, reply.headers), offset: page.offset ?? 0 };
    }
    const items = await this.allPages<Resources[R]>(op, paging.pageSize);
    return { items, total: items.length, offset: 0 };
  }

  private async allPages<T>(op: Operation, pageSize: number | undefined): Promise<T[]> {
    const items: T[] = [];
    for (;;) {
      const reply = await this.send(op, { query: { ...(pageSize ? { limit: pageSize } : {}), offset: items.length } });
      const body = reply.body as ListEnvelope<T>;
      const got = body.data ?? [];
      items.push(...got);
      const total = totalOf(body, reply.headers);
      const shortPage = got.length < (body.meta?.limit ?? pageSize ?? Infinity);
      if (got.length === 0 || (total === undefined ? shortPage : items.length >= total)) return items;
    }
  }

  private operation(resource: ResourceName, action: Action): Operation {
    const id = OPERATION_IDS[resource][action];
    const op = id === undefined ? undefined : this.operations.get(id);
    if (!op) throw new InvalidRequest(`${resource} ${action} is not an operation of the HyperDX OpenAPI document`);
    return op;
  }

  /** Query and body as the document declares them, or nothing is sent. */
  private checkRequest(op: Operation, request: ApiRequest): void {
    const problems = Object.entries(request.query ?? {}).flatMap(([name, value]) => {
      const param = op.parameters.find((p) => p.in === 'query' && p.name === name);
      const check = param ? this.validator.validate(param.schema, value, name) : { ok: false as const, errors: `${name}: not a parameter` };
      return check.ok ? [] : [check.errors];
    });
    if (op.requestSchema) {
      const check = this.validator.validate(op.requestSchema, request.body, 'body');
      if (!check.ok) problems.push(check.errors);
    }
    if (problems.length > 0) throw new InvalidRequest(`the request does not match the OpenAPI document (${op.id}); nothing was sent:\n${problems.join('\n')}`);
  }

  /** One request, sent again after the wait a 429 asks for (bounded in count and length). */
  private async send(op: Operation, request: ApiRequest): Promise<Reply> {
    this.checkRequest(op, request);
    const url = operationUrl(this.mode, op, request.id, request.query);
    for (let retry = 1; ; retry++) {
      const { res, text } = await this.exchange(op, url, request);
      if (res.status === 429 && retry <= RATE_LIMIT_RETRIES) {
        const wait = rateLimitWait(res.headers);
        if (wait.seconds <= RATE_LIMIT_MAX_WAIT_S) {
          this.notice(`${op.method} ${op.path}: 429 Too Many Requests (rate limit${limitOf(res.headers)}); retrying in ${wait.seconds} s (${wait.from}), retry ${retry} of ${RATE_LIMIT_RETRIES}`);
          await this.sleep(wait.seconds * 1000);
          continue;
        }
      }
      if (!res.ok) throw new ServiceError(res.status, serviceMessage(text));
      return { body: this.checkedReply(op, res.status, text), headers: res.headers };
    }
  }

  private async exchange(op: Operation, url: string, request: ApiRequest): Promise<{ res: Response; text: string }> {
    const started = Date.now();
    this.trace?.(`> ${op.method} ${url} (${this.mode.kind === 'oss' ? 'Bearer' : 'Basic'} auth)`);
    let res: Response;
    try {
      res = await fetch(url, {
        method: op.method,
        headers: {
          authorization: authorization(this.mode),
          accept: 'application/json',
          ...(op.requestSchema ? { 'content-type': 'application/json' } : {}),
        },
        ...(op.requestSchema ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new Error(`cannot reach ${url}: ${causeOf(err)}`);
    }
    const text = await res.text();
    this.trace?.(`< ${res.status} ${STATUS_CODES[res.status] ?? ''} (${text.length} bytes, ${Date.now() - started} ms)`);
    return { res, text };
  }

  private checkedReply(op: Operation, status: number, text: string): unknown {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new InvalidResponse(`the reply to ${op.method} ${op.path} is not JSON: ${text.slice(0, 200)}`);
    }
    const schema = op.responseSchemas[String(status)] ?? op.responseSchemas['200'];
    const check = schema ? this.validator.validate(schema, body, 'response') : { ok: true as const };
    if (!check.ok) throw new InvalidResponse(`the reply to ${op.method} ${op.path} does not match the OpenAPI document (${op.id}):\n${check.errors}`);
    return body;
  }
}
