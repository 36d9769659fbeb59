/**
 * How the local channel sinks judge a payload the way Slack and Teams do (channel-sink.ts): a Slack incoming
 * webhook's `invalid_payload`, `no_text`, `msg_too_long` and `invalid_blocks`, and a Teams Workflows trigger's 400 and
 * 413, with every number from src/core/channels/limits.ts. Slack answers the bare code; `detail` says which block
 * broke which limit, for the sink's log and its record of the post, so a failing test points at the renderer's bug.
 * Lengths are counted in characters (code points), as the services document them.
 */
import { SLACK_LIMITS, TEAMS_LIMITS } from '../../core/channels/limits.ts';

export type SlackRefusal = 'invalid_payload' | 'no_text' | 'msg_too_long' | 'invalid_blocks';
export type TeamsRefusal = 'RequestEntityTooLarge' | 'InvalidRequestContent' | 'TriggerInputSchemaMismatch';

export type Verdict<Code extends string> =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; status: number; code: Code; detail: string; payload?: unknown };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const chars = (s: string) => [...s].length;
/** The Slack text object docs' general bound, for texts no block names a tighter one for. */
const TEXT_OBJECT_MAX = 3000;
const ACTIONS_ELEMENTS_MAX = 25;

function parseJson(raw: string): { ok: true; value: unknown } | { ok: false; detail: string } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (e) {
    return { ok: false, detail: `not JSON: ${(e as Error).message}` };
  }
}

/** A problem with one text object, or undefined: `limit` names the SLACK_LIMITS entry it is held to. */
function textProblem(v: unknown, where: string, max: number, limit: string, type?: 'plain_text'): string | undefined {
  if (!isObj(v) || (v.type !== 'plain_text' && v.type !== 'mrkdwn') || typeof v.text !== 'string') {
    return `${where} is not a text object`;
  }
  if (type && v.type !== type) return `${where} must be ${type}`;
  const n = chars(v.text);
  if (n === 0) return `${where} is empty`;
  if (n > max) return `${where} is ${n} characters, more than ${limit} (${max})`;
  return undefined;
}

function urlProblem(v: unknown, where: string): string | undefined {
  if (typeof v !== 'string' || !/^https?:\/\//i.test(v)) return `${where} is not an http(s) URL`;
  const n = chars(v);
  if (n > SLACK_LIMITS.url) return `${where} is ${n} characters, more than url (${SLACK_LIMITS.url})`;
  return undefined;
}

function imageProblem(v: Obj, where: string): string | undefined {
  const url = urlProblem(v.image_url, `${where}.image_url`);
  if (url) return url;
  if (typeof v.alt_text !== 'string') return `${where}.alt_text is missing`;
  const n = chars(v.alt_text);
  if (n > SLACK_LIMITS.imageAltText) {
    return `${where}.alt_text is ${n} characters, more than imageAltText (${SLACK_LIMITS.imageAltText})`;
  }
  return undefined;
}

function buttonProblem(v: Obj, where: string): string | undefined {
  const text = textProblem(v.text, `${where}.text`, SLACK_LIMITS.buttonText, 'buttonText', 'plain_text');
  if (text) return text;
  return v.url === undefined ? undefined : urlProblem(v.url, `${where}.url`);
}

/** An element inside a block (a section's accessory, an actions block's elements): the kinds Pulse can use. */
function elementProblem(v: unknown, where: string, allowed: readonly string[]): string | undefined {
  if (!isObj(v) || typeof v.type !== 'string' || !allowed.includes(v.type)) {
    return `${where} is not one of ${allowed.join(', ')}`;
  }
  return v.type === 'button' ? buttonProblem(v, where) : imageProblem(v, where);
}

function listProblem(
  v: unknown,
  where: string,
  max: number,
  limit: string,
  each: (item: unknown, where: string) => string | undefined,
): string | undefined {
  if (!Array.isArray(v) || v.length === 0) return `${where} is not a non-empty array`;
  if (v.length > max) return `${where} has ${v.length} items, more than ${limit} (${max})`;
  for (const [i, item] of v.entries()) {
    const problem = each(item, `${where}[${i}]`);
    if (problem) return problem;
  }
  return undefined;
}

function sectionProblem(block: Obj, where: string): string | undefined {
  if (block.text === undefined && block.fields === undefined) return `${where} has neither text nor fields`;
  if (block.text !== undefined) {
    const text = textProblem(block.text, `${where}.text`, SLACK_LIMITS.sectionText, 'sectionText');
    if (text) return text;
  }
  if (block.fields !== undefined) {
    const fields = listProblem(block.fields, `${where}.fields`, SLACK_LIMITS.sectionFields, 'sectionFields', (f, w) =>
      textProblem(f, w, SLACK_LIMITS.fieldText, 'fieldText'),
    );
    if (fields) return fields;
  }
  return block.accessory === undefined
    ? undefined
    : elementProblem(block.accessory, `${where}.accessory`, ['button', 'image']);
}

function blockProblem(block: unknown, where: string): string | undefined {
  if (!isObj(block) || typeof block.type !== 'string') return `${where} is not a block`;
  const at = `${where} (${block.type})`;
  switch (block.type) {
    case 'header':
      return textProblem(block.text, `${at}.text`, SLACK_LIMITS.headerText, 'headerText', 'plain_text');
    case 'section':
      return sectionProblem(block, at);
    case 'context':
      return listProblem(block.elements, `${at}.elements`, SLACK_LIMITS.contextElements, 'contextElements', (e, w) =>
        isObj(e) && e.type === 'image' ? imageProblem(e, w) : textProblem(e, w, TEXT_OBJECT_MAX, 'text object'),
      );
    case 'actions':
      return listProblem(block.elements, `${at}.elements`, ACTIONS_ELEMENTS_MAX, 'actions elements', (e, w) =>
        elementProblem(e, w, ['button']),
      );
    case 'image':
      return imageProblem(block, at);
    case 'divider':
      return undefined;
    default:
      return `${where} has an unknown block type "${block.type}"`;
  }
}

/** Judges a Slack incoming-webhook body as Slack does; the first problem found decides. */
export function checkSlackPayload(raw: string): Verdict<SlackRefusal> {
  const parsed = parseJson(raw);
  if (!parsed.ok) return { ok: false, status: 400, code: 'invalid_payload', detail: parsed.detail };
  const payload = parsed.value;
  if (!isObj(payload)) return { ok: false, status: 400, code: 'invalid_payload', detail: 'not a JSON object', payload };
  const refuse = (code: SlackRefusal, detail: string): Verdict<SlackRefusal> => ({
    ok: false,
    status: 400,
    code,
    detail,
    payload,
  });
  if (payload.text !== undefined && typeof payload.text !== 'string') return refuse('invalid_payload', 'text not text');
  const hasText = typeof payload.text === 'string' && payload.text.trim() !== '';
  const hasBlocks = Array.isArray(payload.blocks) && payload.blocks.length > 0;
  if (!hasText && !hasBlocks) return refuse('no_text', 'neither text nor blocks');
  if (typeof payload.text === 'string' && chars(payload.text) > SLACK_LIMITS.text) {
    return refuse('msg_too_long', `text is ${chars(payload.text)} characters, more than text (${SLACK_LIMITS.text})`);
  }
  if (payload.blocks !== undefined) {
    if (!Array.isArray(payload.blocks)) return refuse('invalid_blocks', 'blocks is not an array');
    if (payload.blocks.length > SLACK_LIMITS.blocks) {
      return refuse('invalid_blocks', `${payload.blocks.length} blocks, more than blocks (${SLACK_LIMITS.blocks})`);
    }
    for (const [i, block] of payload.blocks.entries()) {
      const problem = blockProblem(block, `blocks[${i}]`);
      if (problem) return refuse('invalid_blocks', problem);
    }
  }
  return { ok: true, payload };
}

/** "1.5" → [1, 5]; undefined when it is not a version. */
function versionOf(v: unknown): [number, number] | undefined {
  const m = typeof v === 'string' ? /^(\d+)\.(\d+)$/.exec(v) : null;
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

function cardProblem(attachment: unknown, where: string): string | undefined {
  if (!isObj(attachment) || attachment.contentType !== 'application/vnd.microsoft.card.adaptive') {
    return `${where}.contentType is not application/vnd.microsoft.card.adaptive`;
  }
  const card = attachment.content;
  if (!isObj(card) || card.type !== 'AdaptiveCard') return `${where}.content is not an AdaptiveCard`;
  const version = versionOf(card.version);
  const [maxMajor, maxMinor] = versionOf(TEAMS_LIMITS.cardVersion)!;
  if (!version) return `${where}.content.version is not a version`;
  if (version[0] > maxMajor || (version[0] === maxMajor && version[1] > maxMinor)) {
    return `${where}.content.version ${String(card.version)} is above what Teams renders (${TEAMS_LIMITS.cardVersion})`;
  }
  if (card.body !== undefined && !Array.isArray(card.body)) return `${where}.content.body is not an array`;
  return undefined;
}

/**
 * Judges a Teams Workflows ("When a Teams webhook request is received" → "Post card") body: the size first, as the
 * trigger does, then the envelope with its Adaptive Card. A card version above what Teams renders is refused here
 * although Teams would accept it and show "this card couldn't be displayed": the same bug, caught sooner.
 */
export function checkTeamsPayload(raw: string): Verdict<TeamsRefusal> {
  const bytes = Buffer.byteLength(raw);
  if (bytes > TEAMS_LIMITS.payloadBytes) {
    return {
      ok: false,
      status: 413,
      code: 'RequestEntityTooLarge',
      detail: `${bytes} bytes, more than payloadBytes (${TEAMS_LIMITS.payloadBytes})`,
    };
  }
  const parsed = parseJson(raw);
  if (!parsed.ok) return { ok: false, status: 400, code: 'InvalidRequestContent', detail: parsed.detail };
  const payload = parsed.value;
  const refuse = (detail: string): Verdict<TeamsRefusal> => ({
    ok: false,
    status: 400,
    code: 'TriggerInputSchemaMismatch',
    detail,
    payload,
  });
  if (!isObj(payload) || payload.type !== 'message') return refuse('type is not "message"');
  if (!Array.isArray(payload.attachments) || payload.attachments.length === 0) {
    return refuse('attachments is not a non-empty array');
  }
  for (const [i, attachment] of payload.attachments.entries()) {
    const problem = cardProblem(attachment, `attachments[${i}]`);
    if (problem) return refuse(problem);
  }
  return { ok: true, payload };
}
