/**
 * The message envelope: how one chat message is written into the prompt.
 *
 * ```
 * ⟦#42 Anna · 2026-03-01 14:05⟧ see you there
 * ⟦#43 Bob · 2026-03-01 14:06⟧
 * [↩ reply to Anna: "see you there"]
 * me too
 * ```
 *
 * The header is paid for in tokens on every history message, so it is kept short. Its structure
 * characters (`⟦ ⟧ ↩`) cannot appear in any user-supplied part, because every such part goes
 * through sanitize.ts first; a forged header or reply line is therefore impossible.
 */
import type { ReplyContext } from "../types.js";
import { sanitizeLine, sanitizeText } from "./sanitize.js";

/** Options for {@link formatMessageEnvelope}. */
export interface MessageEnvelopeOptions {
  readonly messageId: number;
  /** Display name as Telegram reports it (untrusted). Ignored when `isAgent`. */
  readonly senderName: string;
  /** True for the persona's own messages; they are labelled `agent`. */
  readonly isAgent?: boolean;
  /** Unix time in milliseconds. */
  readonly date: number;
  /** Message text (untrusted); may be empty, or a bracketed placeholder such as `[sticker 👍]`. */
  readonly text: string;
  readonly reply?: ReplyContext;
  /** IANA time zone for the header time; default UTC. */
  readonly timeZone?: string;
}

/** The label for the persona's own messages, in headers and reply annotations. */
export const AGENT_LABEL = "agent";
/** Quoted reply text is cut to this many code points. */
export const QUOTE_MAX_CODE_POINTS = 200;
/** Sender names are cut to this many code points: they repeat on every message. */
export const NAME_MAX_CODE_POINTS = 64;

const ELLIPSIS = "...";

/** Cuts to `max` code points (never inside a surrogate pair) and marks the cut with "...". */
function capCodePoints(s: string, max: number): string {
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  // A cut emoji sequence may end in a dangling joiner; drop it along with trailing spaces.
  return cps.slice(0, max).join("").replace(/[\s\u200D]+$/u, "") + ELLIPSIS;
}

/**
 * A human's name as shown in the envelope. `·` separates name and time in the header, so it is
 * replaced in names; a human called "agent" is marked so they cannot pass for the persona.
 */
function displayName(raw: string): string {
  const name = capCodePoints(sanitizeLine(raw).replace(/\u00B7/gu, "."), NAME_MAX_CODE_POINTS);
  if (name === "") return "(no name)";
  if (/^[^\p{L}\p{N}]*agent[^\p{L}\p{N}]*$/iu.test(name)) return `${name} (human)`;
  return name;
}

// Building an Intl.DateTimeFormat is slow relative to using one; this runs once per history
// message, so keep one per time zone.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    // Throws RangeError for an unknown zone: a configuration error worth failing on.
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** `YYYY-MM-DD HH:MM` in the given IANA time zone. */
export function formatEnvelopeTime(dateMs: number, timeZone = "UTC"): string {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(dateMs))) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

function replyLine(reply: ReplyContext): string {
  switch (reply.kind) {
    case "found": {
      const who = reply.isAgent ? AGENT_LABEL : displayName(reply.senderName);
      const quoted = capCodePoints(sanitizeLine(reply.text), QUOTE_MAX_CODE_POINTS);
      return quoted === "" ? `[↩ reply to ${who}]` : `[↩ reply to ${who}: "${quoted}"]`;
    }
    case "deleted":
      // Telegram told us it is gone (a deletion update, or the fetch found nothing).
      return `[↩ reply to deleted msg #${reply.id}]`;
    case "unknown":
      // The fetch failed or timed out: we keep the id (the message may still be in the history
      // the model sees) but invent no text and no sender, and do not claim the message is gone
      // when we merely could not load it.
      return `[↩ reply to msg #${reply.id}]`;
  }
}

/**
 * Formats one message for the prompt.
 *
 * Header: `⟦#<id> <sender> · <YYYY-MM-DD HH:MM>⟧`, sender `agent` when `isAgent`.
 * Without a reply: `<header> <body>` on one line (the body keeps its own newlines).
 * With a reply: `<header>\n[↩ reply to <sender>: "<quote>"]\n<body>`, the quote flattened to one
 * line and cut at 200 code points plus `...`; a deleted original gives
 * `[↩ reply to deleted msg #<id>]`, an unfetchable one `[↩ reply to msg #<id>]`. An empty body is simply left out.
 *
 * Names, quote and body are sanitised here, so callers pass raw Telegram strings.
 */
export function formatMessageEnvelope(o: MessageEnvelopeOptions): string {
  const sender = o.isAgent === true ? AGENT_LABEL : displayName(o.senderName);
  const header = `⟦#${Math.trunc(o.messageId)} ${sender} · ${formatEnvelopeTime(o.date, o.timeZone)}⟧`;
  const body = sanitizeText(o.text).trim();
  if (o.reply === undefined) return body === "" ? header : `${header} ${body}`;
  const lines = [header, replyLine(o.reply)];
  if (body !== "") lines.push(body);
  return lines.join("\n");
}
