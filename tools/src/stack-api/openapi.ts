/**
 * The HyperDX external API as its published OpenAPI document describes it, made usable by Ajv.
 *
 * hyperdx-openapi.json beside this file is a verbatim copy of the document HyperDX publishes
 * (`packages/api/openapi.json` in github.com/hyperdxio/hyperdx, "HyperDX External API" 2.0.0),
 * taken from shared/reference/; test/unit/stack-api-openapi.test.ts fails when the two drift.
 * It is read from tools/src/stack-api/ at run time, from both src/ (jest) and dist/ (tsc copies no
 * JSON), so a checkout needs no build step for it; an image that ships only dist/ must copy it.
 *
 * The document is OpenAPI 3.0, whose schema dialect is not JSON Schema: toJsonSchema() bridges
 * the differences (see there) so that requests can be checked before they are sent, and replies
 * before they are trusted, with the document as the only source of shapes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export const DOCUMENT_PATH = join(__dirname, 'hyperdx-openapi.json');

type SchemaNode = { [key: string]: unknown };

export interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema: SchemaNode;
}

interface OperationObject {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: SchemaNode }> };
  responses: Record<string, { content?: Record<string, { schema: SchemaNode }> }>;
}

export interface ApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, SchemaNode> };
}

export interface Operation {
  id: string;
  method: string;
  /** Path template as the document writes it, e.g. `/api/v2/alerts/{id}`. */
  path: string;
  parameters: Parameter[];
  requestSchema: SchemaNode | undefined;
  /** JSON schema of each declared status's reply (statuses without a JSON body are absent). */
  responseSchemas: Record<string, SchemaNode>;
}

export function loadDocument(path = DOCUMENT_PATH): ApiDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the HyperDX OpenAPI document at ${path} (${(err as NodeJS.ErrnoException).code}); it ships in tools/src/stack-api/`);
  }
  return JSON.parse(text) as ApiDocument;
}

const jsonSchemaOf = (content: Record<string, { schema: SchemaNode }> | undefined): SchemaNode | undefined => content?.['application/json']?.schema;

export function operations(doc: ApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      id: op.operationId,
      method: method.toUpperCase(),
      path,
      parameters: op.parameters ?? [],
      requestSchema: jsonSchemaOf(op.requestBody?.content),
      responseSchemas: Object.fromEntries(
        Object.entries(op.responses).flatMap(([status, r]) => {
          const schema = jsonSchemaOf(r.content);
          return schema ? [[status, schema]] : [];
        }),
      ),
    })),
  );
}

const SCHEMAS_ID = 'hyperdx-openapi';
const COMPONENT_REF = '#/components/schemas/';
const toRef = (ref: string): string => ref.replace(COMPONENT_REF, `${SCHEMAS_ID}#/$defs/`);

interface Discriminator {
  propertyName: string;
  mapping?: Record<string, string>;
}

/**
 * A discriminated oneOf as if/then on the tag: the tag picks the one variant to check, which is
 * what the document means, and a failure then names that variant's field instead of every
 * variant's. Variants no mapping names are the ones for an absent (or unmapped) tag: the document
 * says "omit configType for the builder variant".
 */
function byTag(discriminator: Required<Discriminator>, variants: SchemaNode[]): SchemaNode[] {
  const tag = discriminator.propertyName;
  const mapped = Object.entries(discriminator.mapping);
  const targets = new Set(mapped.map(([, ref]) => ref));
  const unmapped = variants.filter((v) => !targets.has(v.$ref as string)).map(toJsonSchema);
  const tagIn = (values: string[]): SchemaNode => ({ properties: { [tag]: { enum: values } }, required: [tag] });
  const keys = mapped.map(([value]) => value);
  const otherwise = unmapped.length === 0 ? tagIn(keys) : { if: { not: tagIn(keys) }, then: unmapped.length === 1 ? unmapped[0] : { oneOf: unmapped } };
  return [...mapped.map(([value, ref]) => ({ if: tagIn([value]), then: { $ref: toRef(ref) } })), otherwise];
}

/** Where OpenAPI 3.0 nests schemas; every other keyword's value (enum, default, …) is data. */
const SUBSCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);
const SUBSCHEMA = new Set(['items', 'not', 'additionalProperties']);

const convertKeyword = (key: string, value: unknown): unknown => {
  if (SUBSCHEMA_LISTS.has(key)) return (value as unknown[]).map(toJsonSchema);
  if (SUBSCHEMA.has(key)) return typeof value === 'object' ? toJsonSchema(value) : value;
  if (key === 'properties') return Object.fromEntries(Object.entries(value as SchemaNode).map(([name, s]) => [name, toJsonSchema(s)]));
  return value;
};

/**
 * OpenAPI 3.0 schema → JSON Schema for Ajv:
 * - component refs point into one registered schema (`$defs`) instead of the whole document;
 * - `nullable` beside a `$ref` becomes anyOf [ref, null] (Ajv reads `nullable` only beside `type`);
 * - a discriminator with a mapping becomes if/then on the tag (byTag); one without a mapping is
 *   dropped, its oneOf already tells the variants apart by their enum-pinned tag;
 * - `example` (not a JSON Schema keyword, refused by Ajv's strict mode) is dropped.
 */
export function toJsonSchema(schema: unknown): SchemaNode {
  const { example: _example, discriminator, $ref, ...rest } = schema as SchemaNode;
  const out: SchemaNode = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, convertKeyword(k, v)]));
  const disc = discriminator as Discriminator | undefined;
  if (disc?.mapping) {
    const { oneOf: _converted, ...others } = out;
    return { ...others, allOf: [...((others.allOf as SchemaNode[] | undefined) ?? []), ...byTag(disc as Required<Discriminator>, rest.oneOf as SchemaNode[])] };
  }
  if (typeof $ref !== 'string') return out;
  if (out.nullable !== true) return { ...out, $ref: toRef($ref) };
  const { nullable: _nullable, ...annotations } = out;
  return { ...annotations, anyOf: [{ $ref: toRef($ref) }, { type: 'null' }] };
}

/** `/tiles/0/config` → `tiles[0].config`, the way a person reading the JSON names a field. */
export function fieldName(root: string, pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), root);
}

const describeError = (root: string, e: ErrorObject): string => {
  const field = fieldName(root, e.instancePath);
  if (e.keyword === 'required') return `${field}.${(e.params as { missingProperty: string }).missingProperty}: is required`;
  if (e.keyword === 'enum') return `${field}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
  return `${field}: ${e.message}`;
};

/** Branch summaries ("must match then schema") repeat what the branch's own errors say. */
const SUMMARY_KEYWORDS = new Set(['if', 'oneOf', 'anyOf', 'allOf']);

/** The failing fields, one per line, most specific first: `body.threshold: must be number`. */
export function describeErrors(root: string, errors: readonly ErrorObject[], most = 5): string {
  const specific = errors.filter((e) => !SUMMARY_KEYWORDS.has(e.keyword));
  const lines = [...new Set((specific.length > 0 ? specific : errors).map((e) => describeError(root, e)))];
  return lines.slice(0, most).join('\n') + (lines.length > most ? `\n(and ${lines.length - most} more)` : '');
}

export type Validation = { ok: true } | { ok: false; errors: string };

/** Compiles (once) and runs the document's schemas against values. */
export class SchemaValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<SchemaNode, ValidateFunction>();

  constructor(doc: ApiDocument) {
    // strictTypes/strictTuples would only log: the document leaves `type` implicit beside allOf
    this.ajv = new Ajv({ allErrors: true, strictTypes: false, strictTuples: false });
    addFormats(this.ajv);
    const defs = Object.fromEntries(Object.entries(doc.components.schemas).map(([name, schema]) => [name, toJsonSchema(schema)]));
    this.ajv.addSchema({ $id: SCHEMAS_ID, $defs: defs });
  }

  validate(schema: SchemaNode, value: unknown, root: string): Validation {
    let fn = this.compiled.get(schema);
    if (!fn) {
      fn = this.ajv.compile(toJsonSchema(schema));
      this.compiled.set(schema, fn);
    }
    return fn(value) ? { ok: true } : { ok: false, errors: describeErrors(root, fn.errors ?? []) };
  }
}
