/**
 * The message envelope: how one chat message (or reaction, or note) is written into the prompt.
 *
 * ```
 * ⟦#42 [Anna](tg:@anna) · Sun 1 Mar 14:05⟧ see you there
 * ⟦#43 [Bob](tg:user/77) · 14:06 · to you⟧
 * [↩ reply to #42 [Anna](tg:@anna)]
 * > see you
 * me too
 * ⟦reaction Mira (you) · 14:06⟧ 👍 to #43
 * ```
 *
 * The header is paid for in tokens on every history message, so it is kept short. Its structure
 * characters (`⟦ ⟧ ↩`) cannot appear in any user-supplied part, because every such part goes
 * through sanitize.ts first; a forged header or reply line is therefore impossible. The two
 * structures made of ordinary characters are escaped where a person could type them: a body line
 * starting with `>` (which would pass for the quote line) is written `\>`, and reference syntax
 * typed in a body, quote, name or reaction (`[Bob](tg:user/42)`) is written `[Bob]\(tg:user/42)`
 * (for bodies, mentions.ts does it around the references it builds from Telegram's entities).
 * Speakers are written by speaker.ts (one formatter for every reference). The planner's prompt
 * gives compact local times (`formatHeaderTime`); other readers (summaries, the addressing call)
 * get RFC 3339 UTC.
 */
import { capCodePoints, selfLabel, speakerRef, type Speaker } from "./speaker";
import { escapeQuoteMarkers, neutralizeReferences, sanitizeLine, sanitizeText } from "./sanitize";
import { memoryTeller } from "./memory-teller";

/** What a message replies to, as the envelope's reply line shows it. */
export type EnvelopeReply =
  /** The replied-to message is known: its id and who wrote it (the persona: `isAgent`). */
  | { readonly kind: "found"; readonly id: number; readonly sender: Speaker; readonly isAgent: boolean }
  /** Telegram said it is gone. */
  | { readonly kind: "deleted"; readonly id: number }
  /** It could not be loaded: the id only, no sender invented. */
  | { readonly kind: "unknown"; readonly id: number }
  /**
   * A message of another chat (Telegram's reply_to_peer_id): no id (it is not this chat's) and
   * no author (whoever quotes it chose it); its quote, if any, follows as plain quoted text.
   */
  | { readonly kind: "elsewhere" };

/** Options for {@link formatMessageEnvelope}. */
export interface MessageEnvelopeOptions {
  readonly messageId: number;
  /** Who wrote it (untrusted names, sanitised here); the persona when `isAgent`. */
  readonly sender: Speaker;
  /** True for the persona's own messages; they are labelled by its name, `Mira (you)`, never as a reference. */
  readonly isAgent?: boolean;
  /** Unix time in milliseconds. */
  readonly date: number;
  /** The time as the header shows it (the prompt's compact local time); default RFC 3339 UTC of `date`. */
  readonly time?: string;
  /** A marker after the time, inside the header (`to you` on the addressed messages). */
  readonly mark?: string;
  /**
   * Message text (untrusted), already through mentions.ts's `normalizeMentions` (mentions
   * rewritten to references, typed reference syntax neutralised); may be empty, or a bracketed
   * placeholder such as `[sticker 👍]`. Lines starting with `>` are escaped here.
   */
  readonly text: string;
  readonly reply?: EnvelopeReply;
  /** A quote of the replied-to message (untrusted), written as one `> ` line after the reply line. */
  readonly quote?: string;
}

/** Quoted text is cut to this many code points. */
const QUOTE_MAX_CODE_POINTS = 200;
/** Emoji of a reaction are cut to this many code points. */
const EMOJI_MAX_CODE_POINTS = 16;

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
      weekday: "short",
      hourCycle: "h23",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** RFC 3339 in UTC, to the second: `2026-03-01T14:05:30Z` (what every header carries). */
function formatRfc3339(dateMs: number): string {
  return new Date(Math.floor(dateMs / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

/** A moment in a time zone, as the prompt writes it. */
export interface LocalTime {
  /** `Mon` … `Sun`. */
  readonly weekday: string;
  readonly year: string;
  /** `01` … `12`. */
  readonly month: string;
  /** `01` … `31`. */
  readonly day: string;
  /** `HH:MM`, 24-hour clock. */
  readonly clock: string;
  /** `YYYY-MM-DD`: equal for two moments of the same local day. */
  readonly dayKey: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS: Record<string, string> = {
  Mon: "Monday",
  Tue: "Tuesday",
  Wed: "Wednesday",
  Thu: "Thursday",
  Fri: "Friday",
  Sat: "Saturday",
  Sun: "Sunday",
};

/** The parts of `dateMs` in an IANA time zone (throws RangeError for an unknown zone). */
export function localTime(dateMs: number, timeZone = "UTC"): LocalTime {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(dateMs))) parts[p.type] = p.value;
  const { year = "", month = "", day = "", hour = "", minute = "", weekday = "" } = parts;
  return { weekday, year, month, day, clock: `${hour}:${minute}`, dayKey: `${year}-${month}-${day}` };
}

/** "Now" as the prompt states it: `Wednesday 2026-11-25 14:07 (Europe/Berlin)`. */
export function formatNow(now: number, timeZone = "UTC"): string {
  const t = localTime(now, timeZone);
  return `${WEEKDAYS[t.weekday] ?? t.weekday} ${t.dayKey} ${t.clock} (${timeZone})`;
}

/**
 * A history header's time, compact: `14:05` on the same local day as the item before it, else
 * with the day, `Tue 24 Nov 14:05` (and the year when it is not the year of `now`).
 */
export function formatHeaderTime(
  dateMs: number,
  timeZone: string,
  previousDayKey: string | undefined,
  nowYear: string,
): string {
  const t = localTime(dateMs, timeZone);
  if (t.dayKey === previousDayKey) return t.clock;
  const year = t.year === nowYear ? "" : ` ${t.year}`;
  return `${t.weekday} ${Number(t.day)} ${MONTHS[Number(t.month) - 1] ?? t.month}${year} ${t.clock}`;
}

/** More than this between two messages earns a marker ("3 hours later"). */
const GAP_MARKER_MS = 3600_000;

/**
 * `⟦3 hours later⟧` for a pause longer than an hour between two messages, else "": said as a
 * person would, to the nearest unit — hours up to a day ("9 hours later" for 8 h 55 min), then
 * "a day later", days ("3 days later" for 2 days 23 hours: never rounded down), then "about a
 * week later", "about 3 weeks later", "about a month later", "about 5 months later", "about a
 * year later".
 */
export function formatGap(ms: number): string {
  if (ms <= GAP_MARKER_MS) return "";
  const hours = ms / 3600_000;
  const days = hours / 24;
  const said = (n: number, unit: string, one: string) =>
    n === 1 ? `⟦${one} ${unit} later⟧` : `⟦${n} ${unit}s later⟧`;
  if (hours < 21.5) return said(Math.max(1, Math.round(hours)), "hour", "1");
  if (hours < 36) return "⟦a day later⟧";
  if (days < 6.5) return said(Math.round(days), "day", "a");
  if (days < 25) return `⟦about ${said(Math.round(days / 7), "week", "a").slice(1)}`;
  if (days < 320) return `⟦about ${said(Math.max(1, Math.round(days / 30.4)), "month", "a").slice(1)}`;
  return `⟦about ${said(Math.max(1, Math.round(days / 365)), "year", "a").slice(1)}`;
}

function replyLine(reply: EnvelopeReply): string {
  switch (reply.kind) {
    case "found":
      return `[↩ reply to #${Math.trunc(reply.id)} ${reply.isAgent ? selfLabel(reply.sender) : speakerRef(reply.sender)}]`;
    case "deleted":
      // Telegram told us it is gone (a deletion update, or the fetch found nothing).
      return `[↩ reply to deleted msg #${Math.trunc(reply.id)}]`;
    case "unknown":
      // The fetch failed or timed out: we keep the id (the message may still be in the history
      // the model sees) but invent no sender, and do not claim the message is gone when we
      // merely could not load it.
      return `[↩ reply to msg #${Math.trunc(reply.id)}]`;
    case "elsewhere":
      return "[↩ reply to a message in another chat]";
  }
}

/** The `> ` line of a quote: flattened to one line, cut at 200 code points; "" when empty. */
function quoteLine(quote: string | undefined): string {
  if (quote === undefined) return "";
  const q = capCodePoints(neutralizeReferences(sanitizeLine(quote)), QUOTE_MAX_CODE_POINTS);
  return q === "" ? "" : `> ${q}`;
}

/**
 * Formats one message for the prompt.
 *
 * Header: `⟦#<id> <sender> · <time>⟧` (time: the given compact local time, else RFC 3339 UTC;
 * `⟦#<id> <sender> · <time> · <mark>⟧` with a mark), sender a reference `[nickname](tg:@username)`
 * (speaker.ts), or the persona's label `Mira (you)` when `isAgent`. Without a reply: `<header> <body>` on one line (the body
 * keeps its own newlines). With a reply: `<header>\n[↩ reply to #<id> <sender>]\n> <quote>\n<body>`;
 * a deleted original gives `[↩ reply to deleted msg #<id>]`, an unfetchable one
 * `[↩ reply to msg #<id>]`, one in another chat `[↩ reply to a message in another chat]`; the quote line only when a quote is given (cut at 200 code points
 * plus `...`). An empty body is simply left out.
 *
 * Names, quote and body are sanitised here, so callers pass raw Telegram strings.
 */
export function formatMessageEnvelope(o: MessageEnvelopeOptions): string {
  const sender = o.isAgent === true ? selfLabel(o.sender) : speakerRef(o.sender);
  const header = `⟦#${Math.trunc(o.messageId)} ${sender} · ${o.time ?? formatRfc3339(o.date)}${o.mark ? ` · ${o.mark}` : ""}⟧`;
  const body = escapeQuoteMarkers(sanitizeText(o.text).trim());
  const quote = quoteLine(o.quote);
  if (o.reply === undefined && quote === "") return body === "" ? header : `${header} ${body}`;
  const lines = [header];
  if (o.reply !== undefined) lines.push(replyLine(o.reply));
  if (quote !== "") lines.push(quote);
  if (body !== "") lines.push(body);
  return lines.join("\n");
}

/** Options for {@link formatReactionEnvelope}. */
export interface ReactionEnvelopeOptions {
  /** Who reacted; the persona when `isAgent`. */
  readonly sender: Speaker;
  readonly isAgent?: boolean;
  readonly date: number;
  /** The time as the header shows it; default RFC 3339 UTC of `date`. */
  readonly time?: string;
  /** The reaction (untrusted): an emoji, or a short label for a custom one. */
  readonly emoji: string;
  /** The message reacted to. */
  readonly messageId: number;
}

/** `⟦reaction <sender> · <time>⟧ <emoji> to #<id>`: one line. */
export function formatReactionEnvelope(o: ReactionEnvelopeOptions): string {
  const sender = o.isAgent === true ? selfLabel(o.sender) : speakerRef(o.sender);
  const emoji = capCodePoints(neutralizeReferences(sanitizeLine(o.emoji)), EMOJI_MAX_CODE_POINTS) || "?";
  return `⟦reaction ${sender} · ${o.time ?? formatRfc3339(o.date)}⟧ ${emoji} to #${Math.trunc(o.messageId)}`;
}

/** `⟦system · <time>⟧ <text>`: something that happened in the chat, said by nobody. */
export function formatSystemEnvelope(date: number, text: string, time?: string): string {
  const body = escapeQuoteMarkers(sanitizeText(text).trim());
  return `⟦system · ${time ?? formatRfc3339(date)}⟧${body === "" ? "" : ` ${body}`}`;
}

/** A memory line's text is cut to this many code points. */
const MEMORY_MAX_CODE_POINTS = 300;

/** A chat's title in a memory line is cut to this many code points. */
const MEMORY_PLACE_MAX_CODE_POINTS = 64;

/** Where a memory was learnt, when that is not the chat the prompt is for. */
export type MemoryPlace = { readonly kind: "group"; readonly title?: string } | { readonly kind: "private" };

/** One memory as the prompt shows it (memory/recall.ts chooses them). */
export interface MemoryNote {
  /** The person it is about (a speaker, named by the one formatter); absent: a note about a chat. */
  readonly about?: Speaker;
  /** It is about the persona itself (what it said about itself): written with its own label, `Mira (you)`. */
  readonly self?: boolean;
  /** When it was stored or last merged (Unix ms), or "curated" for the persona's curated files. */
  readonly date: number | "curated";
  /** What is remembered (untrusted: it may be a person's own wording). */
  readonly text: string;
  /** Who said it, when that is someone else than the person it is about: shown as their statement. */
  readonly teller?: Speaker;
  /** Where it was learnt, when that is another chat than this one. */
  readonly where?: MemoryPlace;
  /** The operator wrote or rewrote it: the owner's words (no teller is claimed). */
  readonly edited?: boolean;
  /**
   * Who told it, when `teller` does not say: `you` (the persona said it itself), `the owner`
   * (the operator: a curated file), `unknown` (an older row that kept no teller). Every memory
   * line names its teller (memory/teller-label.ts).
   */
  readonly toldAs?: "you" | "the owner" | "unknown";
}

/** `"Sandbox"` (sanitised, flattened, cut; a typed `"` becomes `'` so the quotes hold) or `a private chat`. */
function placeLabel(p: MemoryPlace): string {
  if (p.kind === "private") return "a private chat";
  const title = capCodePoints(
    neutralizeReferences(sanitizeLine(p.title ?? "")),
    MEMORY_PLACE_MAX_CODE_POINTS,
  ).replaceAll('"', "'");
  return title === "" ? "another group" : `"${title}"`;
}

/**
 * `⟦memory <ref> · <YYYY-MM-DD>⟧ <fact>`: one line; `this chat` for a note about the chat,
 * `curated` for a curated memory, the persona's own label (`Mira (you)`) for what it said about itself. A memory someone else stated about the person is their
 * statement, never the person's own words: `⟦memory [Alice](tg:@alice) · …⟧ [Dave](tg:@dave) said
 * in "Sandbox": <fact>` (`said:` when it was said in this chat). A note widened from another chat
 * is `⟦memory chat "Club" · …⟧`. The subject and teller are speaker references, the place and the
 * fact are flattened to one line and sanitised, so none can forge another memory, a message or
 * a section.
 */
export function formatMemoryEnvelope(o: MemoryNote): string {
  const who =
    o.about !== undefined
      ? o.self === true
        ? selfLabel(o.about)
        : speakerRef(o.about)
      : o.where !== undefined
        ? `chat ${placeLabel(o.where)}`
        : "this chat";
  const when = o.date === "curated" ? "curated" : formatRfc3339(o.date).slice(0, 10);
  const text = capCodePoints(neutralizeReferences(sanitizeLine(o.text)), MEMORY_MAX_CODE_POINTS);
  const said = memoryTeller(o, (p) => placeLabel(p), speakerRef);
  const body = [said, text].filter((x) => x !== "").join(" ");
  const mark = o.edited === true ? " · edited by the owner" : "";
  return `⟦memory ${who} · ${when}${mark}⟧${body === "" ? "" : ` ${body}`}`;
}

/**
 * A summary's section: `⟦summary⟧` (or another label) then the summary, lines kept; "" when
 * empty. A summary is the model's retelling of what people wrote, so it is neutralised like every
 * other text: no structure character, no quote marker and no reference (`[Name](tg:…)`) survives.
 */
export function formatSummarySection(summary: string | undefined, label = "⟦summary⟧"): string {
  const body =
    summary !== undefined ? escapeQuoteMarkers(neutralizeReferences(sanitizeText(summary)).trim()) : "";
  return body === "" ? "" : `${label}\n${body}`;
}
