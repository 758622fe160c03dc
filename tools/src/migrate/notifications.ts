/**
 * A Datadog monitor message → a HyperDX alert message, and its `@handles` → HyperDX webhooks.
 *
 * HyperDX renders an alert's message with Handlebars over one view (the API's
 * tasks/checkAlerts/template.ts in the HyperDX snapshot): `value`, `alert` (its `threshold`,
 * `name`, …), `group` (the group-by columns and values, `column:value, …`), `startTime`,
 * `endTime`, `dashboard`, `savedSearch`, and the helper `is_match "path" "value"` over that view.
 * It has no alert state in the view: the same message goes out when the alert fires and, after its
 * own "resolved" line, when it resolves. So Datadog's `{{#is_alert}}` text is kept (and goes out on
 * recovery too), the blocks of other states (`is_recovery`, `is_warning`, `is_no_data`, …) are
 * dropped, and every such change is reported. Any `@word` left in a HyperDX message is read as a
 * channel mention, so Datadog's handles leave the text: the mapped ones become the alert's channels.
 */

/** `--notify-map FILE` and `--webhook NAME=ID`: a handle (without `@`) → HyperDX webhook id. */
export interface WebhookMap {
  byHandle: ReadonlyMap<string, string>;
  /** used when no handle of a monitor maps */
  fallback: string | undefined;
}

/** Datadog template variables with a HyperDX equivalent in the alert view. */
const VARIABLES: ReadonlyMap<string, string> = new Map([
  ['value', 'value'],
  ['threshold', 'alert.threshold'],
]);

/** Variables HyperDX has only roughly: the alert window's start for when it triggered. */
const APPROXIMATE_VARIABLES: ReadonlyMap<string, [string, string]> = new Map([
  ['last_triggered_at', ['startTime', 'the start of the alert window']],
  ['first_triggered_at', ['startTime', 'the start of the alert window']],
]);

const STATE_BLOCKS: ReadonlyMap<string, 'keep' | 'drop'> = new Map([
  ['is_alert', 'keep'],
  ['is_recovery', 'drop'],
  ['is_alert_recovery', 'drop'],
  ['is_warning', 'drop'],
  ['is_warning_recovery', 'drop'],
  ['is_no_data', 'drop'],
  ['is_no_data_recovery', 'drop'],
  ['is_renotify', 'drop'],
  ['is_alert_to_warning', 'drop'],
  ['is_warning_to_alert', 'drop'],
]);

const TOKEN = /\{\{\{?\s*([#^/]?)\s*([\w.-]+)([^}]*)\}?\}\}/g;

/** `@webhook-ops`, `@slack-team`, `@someone@example.com` in the message. */
const HANDLE = /(^|[\s(`])@([\w.+-]+(?:@[\w.-]+)?)/g;

export function handlesOf(message: string): string[] {
  return [...new Set([...message.matchAll(HANDLE)].map((m) => m[2]!.replace(/[.]+$/, '')))];
}

interface Frame {
  name: string;
  keep: boolean;
  text: string;
}

export interface ConvertedMessage {
  message: string;
  /** handles whose notification is unconditional (outside dropped blocks) */
  handles: string[];
  /** handles inside dropped blocks: Datadog notified them only in that state or match */
  conditional: string[];
  notes: string[];
}

function variable(name: string, notes: string[]): string {
  const exact = VARIABLES.get(name);
  if (exact) return `{{${exact}}}`;
  const rough = APPROXIMATE_VARIABLES.get(name);
  if (rough) {
    notes.push(`{{${name}}} became {{${rough[0]}}}, ${rough[1]}`);
    return `{{${rough[0]}}}`;
  }
  if (/\.(name|value)$/.test(name) && !name.startsWith('event.') && !name.startsWith('log.')) {
    notes.push(`{{${name}}} became {{group}}: HyperDX names the group as "column:value, …", not one tag's value`);
    return '{{group}}';
  }
  notes.push(`{{${name}}} dropped: HyperDX's alert view has no such value`);
  return '';
}

function openBlock(name: string, kind: string, args: string, notes: string[]): boolean {
  const state = STATE_BLOCKS.get(name);
  if (kind === '#' && state === 'keep') {
    notes.push(`{{#${name}}} text kept; HyperDX also sends it when the alert resolves (its message has no state)`);
    return true;
  }
  if (name === 'is_match' || name === 'is_exact_match') notes.push(`{{${kind}${name}${args}}} block dropped: HyperDX matches on its own group columns, not Datadog tags`);
  else notes.push(`{{${kind}${name}}} block dropped: HyperDX sends one message, on alert and on resolve`);
  return false;
}

/** The message converted; what changed in `notes`. */
export function convertMessage(message: string): ConvertedMessage {
  const notes: string[] = [];
  const root: Frame = { name: '', keep: true, text: '' };
  const stack: Frame[] = [root];
  let last = 0;
  const conditional: string[] = [];
  const append = (text: string): void => {
    const top = stack.at(-1)!;
    if (stack.every((f) => f.keep)) top.text += text;
    else conditional.push(...handlesOf(text));
  };
  for (const m of message.matchAll(TOKEN)) {
    append(message.slice(last, m.index));
    last = m.index + m[0].length;
    const [, kind, name, args] = m as unknown as [string, string, string, string];
    if (kind === '#' || kind === '^') stack.push({ name, keep: openBlock(name, kind, args, notes), text: '' });
    else if (kind === '/') {
      const frame = stack.length > 1 && stack.at(-1)!.name === name ? stack.pop()! : undefined;
      if (frame?.keep) append(frame.text);
    } else append(variable(name, notes));
  }
  append(message.slice(last));
  while (stack.length > 1) {
    const frame = stack.pop()!;
    if (frame.keep) stack.at(-1)!.text += frame.text;
  }
  const handles = handlesOf(root.text);
  const text = root.text
    .replace(HANDLE, '$1')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
  return { message: text, handles, conditional: conditional.filter((h) => !handles.includes(h)), notes: [...new Set(notes)] };
}

/** The webhooks a monitor's handles map to; the rest reported. */
export function channelsFor(converted: ConvertedMessage, webhooks: WebhookMap, notes: string[]): string[] {
  const ids: string[] = [];
  for (const handle of converted.handles) {
    const id = webhooks.byHandle.get(handle) ?? webhooks.byHandle.get(handle.replace(/^webhook-/, ''));
    if (id === undefined) notes.push(`notification @${handle} not mapped (give it in --notify-map, or --webhook ${handle.replace(/^webhook-/, '')}=ID)`);
    else if (!ids.includes(id)) ids.push(id);
  }
  for (const handle of converted.conditional) notes.push(`notification @${handle} was conditional in Datadog (a state or is_match block): not notified`);
  if (ids.length === 0 && webhooks.fallback !== undefined) ids.push(webhooks.fallback);
  return ids;
}
