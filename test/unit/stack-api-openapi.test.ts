/**
 * The shipped copy of the HyperDX OpenAPI document and its bridge to Ajv: the copy equals the
 * published one, every example the document gives passes its own schema (so the OpenAPI 3.0 →
 * JSON Schema conversion loses nothing the document means), and a failure names the field.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/src/collector/build';
import { DOCUMENT_PATH, describeErrors, fieldName, loadDocument, operations, SchemaValidator, toJsonSchema } from '../../tools/src/stack-api/openapi';

const PUBLISHED = join(REPO_ROOT, '..', 'shared', 'reference', 'hyperdx-openapi.json');
const doc = loadDocument();
const validator = new SchemaValidator(doc);
const schema = (name: string) => doc.components.schemas[name]!;

type Content = Record<string, { schema: Record<string, unknown>; example?: unknown; examples?: Record<string, { value: unknown }> }>;

/** Every example of a request or reply body in the document, with the schema it illustrates. */
function documentExamples(): [label: string, schema: Record<string, unknown>, example: unknown][] {
  const raw = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as {
    paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Content }; responses: Record<string, { content?: Content }> }>>;
  };
  const fromContent = (label: string, content: Content | undefined) => {
    const json = content?.['application/json'];
    if (!json) return [];
    const values = [...(json.example === undefined ? [] : [json.example]), ...Object.values(json.examples ?? {}).map((e) => e.value)];
    return values.map((v, i) => [`${label} #${i}`, json.schema, v] as [string, Record<string, unknown>, unknown]);
  };
  return Object.values(raw.paths).flatMap((methods) =>
    Object.values(methods).flatMap((op) => [...fromContent(`${op.operationId} request`, op.requestBody?.content), ...Object.entries(op.responses).flatMap(([status, r]) => fromContent(`${op.operationId} ${status}`, r.content))]),
  );
}

describe('the shipped OpenAPI document', () => {
  (existsSync(PUBLISHED) ? it : it.skip)('is byte-identical to the published one in shared/reference', () => {
    expect(readFileSync(DOCUMENT_PATH).equals(readFileSync(PUBLISHED))).toBe(true);
  });

  it('declares every operation the CLI drives', () => {
    const ids = operations(doc).map((op) => `${op.method} ${op.path} ${op.id}`);
    for (const line of [
      'POST /api/v2/dashboards createDashboard',
      'GET /api/v2/dashboards listDashboards',
      'GET /api/v2/dashboards/{id} getDashboard',
      'PUT /api/v2/dashboards/{id} updateDashboard',
      'DELETE /api/v2/dashboards/{id} deleteDashboard',
      'POST /api/v2/alerts createAlert',
      'GET /api/v2/alerts listAlerts',
      'GET /api/v2/alerts/{id} getAlert',
      'PUT /api/v2/alerts/{id} updateAlert',
      'DELETE /api/v2/alerts/{id} deleteAlert',
      'GET /api/v2/sources listSources',
    ]) {
      expect(ids).toContain(line);
    }
  });

  const examples = documentExamples();
  it('has examples to check (sanity)', () => expect(examples.length).toBeGreaterThan(50));
  it.each(examples)('%s passes its own schema', (_label, s, example) => {
    expect(validator.validate(s, example, 'body')).toEqual({ ok: true });
  });
});

describe('toJsonSchema', () => {
  it('points component refs into the registered $defs and drops example', () => {
    expect(toJsonSchema({ $ref: '#/components/schemas/AlertInterval', description: 'd', example: '1h' })).toEqual({
      description: 'd',
      $ref: 'hyperdx-openapi#/$defs/AlertInterval',
    });
  });

  it('turns nullable beside $ref into anyOf [ref, null]', () => {
    expect(toJsonSchema({ $ref: '#/components/schemas/QueryLanguage', nullable: true, default: 'lucene' })).toEqual({
      default: 'lucene',
      anyOf: [{ $ref: 'hyperdx-openapi#/$defs/QueryLanguage' }, { type: 'null' }],
    });
  });

  it('leaves data keywords alone: an enum value or a property called "example" is not a keyword', () => {
    const s = { type: 'object', properties: { example: { type: 'string', example: 'x' } }, default: { example: 1 }, enum: [{ $ref: 'data' }] };
    expect(toJsonSchema(s)).toEqual({ type: 'object', properties: { example: { type: 'string' } }, default: { example: 1 }, enum: [{ $ref: 'data' }] });
  });

  it('turns a mapped discriminator into if/then on the tag, unmapped variants for an absent tag', () => {
    const converted = toJsonSchema({
      oneOf: [{ $ref: '#/components/schemas/B' }, { $ref: '#/components/schemas/S' }],
      discriminator: { propertyName: 'configType', mapping: { sql: '#/components/schemas/S' } },
    });
    expect(converted).toEqual({
      allOf: [
        { if: { properties: { configType: { enum: ['sql'] } }, required: ['configType'] }, then: { $ref: 'hyperdx-openapi#/$defs/S' } },
        { if: { not: { properties: { configType: { enum: ['sql'] } }, required: ['configType'] } }, then: { $ref: 'hyperdx-openapi#/$defs/B' } },
      ],
    });
  });
});

describe('validation errors name the field', () => {
  const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'stack-api', 'dashboard.json'), 'utf8')) as { tiles: Record<string, unknown>[] };
  const failing = (name: string, value: unknown) => {
    const result = validator.validate(schema(name), value, 'body');
    if (result.ok) throw new Error('expected a failure');
    return result.errors;
  };

  it('reports the one variant the tag picks, not every variant of the union', () => {
    const body = structuredClone(dashboard);
    delete (body.tiles[0]!.config as Record<string, unknown>).select;
    expect(failing('CreateDashboardRequest', body)).toBe('body.tiles[0].config.select: is required');
  });

  it('reports an unknown tag value with the allowed ones', () => {
    const body = structuredClone(dashboard);
    (body.tiles[1]!.config as Record<string, unknown>).displayType = 'gauge';
    expect(failing('CreateDashboardRequest', body)).toMatch(/^body\.tiles\[1\]\.config\.displayType: must be one of line, stacked_bar, table, number, pie/);
  });

  it('reports every failing field of an alert, enum values listed, formats checked', () => {
    const errors = failing('CreateAlertRequest', { threshold: 'high', interval: '2h', thresholdType: 'above', scheduleStartAt: 'tomorrow', channel: { type: 'email' } });
    expect(errors.split('\n')).toEqual([
      'body.threshold: must be number',
      'body.interval: must be one of 1m, 5m, 15m, 30m, 1h, 6h, 12h, 1d',
      'body.scheduleStartAt: must match format "date-time"',
      'body.channel.webhookId: is required',
      'body.channel.type: must be one of webhook',
    ]);
  });

  it('accepts null where the document says nullable, also beside a $ref', () => {
    expect(validator.validate(schema('CreateDashboardRequest'), { ...dashboard, savedQueryLanguage: null, savedQuery: null }, 'body')).toEqual({ ok: true });
  });

  it('describeErrors caps the list and keeps a failing union summary only when it is all there is', () => {
    const many = Array.from({ length: 7 }, (_, i) => ({ instancePath: `/f${i}`, keyword: 'type', message: 'must be string', params: {}, schemaPath: '' }));
    expect(describeErrors('body', many, 5).split('\n')).toHaveLength(6);
    expect(describeErrors('body', many, 5)).toMatch(/\(and 2 more\)$/);
    expect(describeErrors('x', [{ instancePath: '', keyword: 'oneOf', message: 'must match exactly one schema in oneOf', params: {}, schemaPath: '' }])).toBe('x: must match exactly one schema in oneOf');
  });

  it('fieldName reads JSON pointers the way people name fields', () => {
    expect(fieldName('response', '/data/0/tiles/12/config')).toBe('response.data[0].tiles[12].config');
    expect(fieldName('body', '/a~1b/c~0d')).toBe('body.a/b.c~d');
    expect(fieldName('body', '')).toBe('body');
  });
});
