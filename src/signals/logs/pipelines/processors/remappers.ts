/**
 * The remappers: the attribute remapper (attribute or tag to attribute or tag, with a cast), and
 * the ones that make a source the log's official date, status, service, message, trace or span
 * id. Datadog applies only the first status, service and message remapper a log meets, across
 * pipelines, and every date remapper (the last wins); sources stay as attributes.
 */
import type { JsonValue } from '../../../../core/wire/json';
import type { PipelineLog } from '../log';
import type { AttributeRemapperSpec, ReservedRemapperSpec } from '../types';
import { dateValueMs } from './date-value';
import { statusOf } from './status';
import { firstPresent, type ProcessorStep } from './step';

const MESSAGE = 'message';

const scalarString = (value: JsonValue): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined);

function tagValues(log: PipelineLog, key: string): string[] {
  const prefix = `${key}:`;
  return log.tags.filter((t) => t.startsWith(prefix)).map((t) => t.slice(prefix.length));
}

function cast(value: JsonValue, format: AttributeRemapperSpec['targetFormat']): JsonValue {
  switch (format) {
    case 'string':
      return typeof value === 'string' ? value : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
    case 'integer': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : NaN;
      // digits a double cannot hold exactly stay digits
      return Number.isNaN(n) || (typeof value === 'string' && !Number.isSafeInteger(n)) ? value : Math.trunc(n);
    }
    case 'double': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isNaN(n) ? value : n;
    }
    default:
      return value;
  }
}

/** What the remapper reads: the first source present, from attributes or tags. */
function sourceValue(log: PipelineLog, spec: AttributeRemapperSpec): [string, JsonValue] | undefined {
  if (spec.sourceType === 'attribute') return firstPresent(log, spec.sources);
  for (const source of spec.sources) {
    const values = tagValues(log, source);
    if (values.length > 0) return [source, values.length === 1 ? (values[0] as string) : values];
  }
  return undefined;
}

/** The official message is no conflict: sonicwall's `msg` → `message` remapper replaces it. */
function targetExists(log: PipelineLog, spec: AttributeRemapperSpec): boolean {
  if (spec.targetType === 'tag') return tagValues(log, spec.target).length > 0;
  return spec.target === MESSAGE ? log.attributes.has(MESSAGE) : log.has(spec.target);
}

/**
 * Remapped to `message`, a value becomes the official message (sonicwall's expected results show
 * it there and no `message` attribute), unlike a grok extraction of that name (log.ts).
 */
function setTarget(log: PipelineLog, target: string, value: JsonValue): void {
  if (target !== MESSAGE || log.attributes.has(MESSAGE)) log.set(target, value);
  else log.message = scalarString(value) ?? JSON.stringify(value);
}

export function attributeRemapper(spec: AttributeRemapperSpec): ProcessorStep {
  return (log) => {
    const found = sourceValue(log, spec);
    if (!found) return;
    const [source, raw] = found;
    if (source === spec.target && spec.sourceType === spec.targetType) {
      if (spec.targetType === 'attribute') log.set(spec.target, cast(raw, spec.targetFormat));
      return;
    }
    if (targetExists(log, spec) && !spec.overrideOnConflict) return;
    // every source goes, not only the one read (traefik's `OriginStatus, DownstreamStatus`)
    if (!spec.preserveSource) {
      if (spec.sourceType === 'tag') log.tags = log.tags.filter((t) => !spec.sources.some((s) => t.startsWith(`${s}:`)));
      else for (const s of spec.sources) log.delete(s);
    }
    if (spec.targetType === 'tag') {
      log.tags = log.tags.filter((t) => !t.startsWith(`${spec.target}:`));
      for (const v of Array.isArray(raw) ? raw : [raw]) log.tags.push(`${spec.target}:${typeof v === 'string' ? v : JSON.stringify(v)}`);
    } else setTarget(log, spec.target, cast(raw, spec.targetFormat));
  };
}

export function reservedRemapper(spec: ReservedRemapperSpec): ProcessorStep {
  const { sources } = spec;
  switch (spec.type) {
    case 'date-remapper':
      return (log) => {
        for (const source of sources) {
          const ms = dateValueMs(log.get(source));
          if (ms === undefined) continue;
          log.timestampMs = ms;
          return;
        }
      };
    case 'status-remapper':
      return (log) => {
        if (log.statusRemapped) return;
        const found = firstPresent(log, sources);
        if (!found) return;
        log.status = statusOf(found[1]);
        log.statusRemapped = true;
      };
    case 'service-remapper':
      return (log) => {
        if (log.serviceRemapped) return;
        const found = firstPresent(log, sources);
        const text = found && scalarString(found[1]);
        if (text === undefined) return;
        log.service = text;
        log.serviceRemapped = true;
      };
    case 'message-remapper':
      return (log) => {
        if (log.messageRemapped) return;
        const found = firstPresent(log, sources);
        if (!found) return;
        log.message = scalarString(found[1]) ?? JSON.stringify(found[1]);
        log.messageRemapped = true;
        // the source becomes the message: Datadog's results no longer list it as an attribute
        log.delete(found[0]);
      };
    case 'trace-id-remapper':
      return (log) => {
        const found = firstPresent(log, sources);
        const id = found && scalarString(found[1]);
        if (found === undefined || id === undefined) return;
        log.traceId = id;
        // the source becomes the trace id: Datadog's results no longer list it (druid, tekton)
        log.delete(found[0]);
      };
    case 'span-id-remapper':
      return (log) => {
        const text = firstPresent(log, sources);
        const id = text && scalarString(text[1]);
        if (id !== undefined) log.spanId = id;
      };
  }
}
