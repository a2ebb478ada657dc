/**
 * Her output is a chat message: what a `send` carries is cleaned of the request's own markup
 * before it can reach the chat. The request writes messages as `⟦#12 [Ann](tg:@ann) · 12:00⟧`,
 * reply lines as `[↩ reply to #11 Mira (you)]` and people as `[Ann](tg:@ann)` references; a
 * model that copies any of it would show the chat a header, an arrow line or a link-looking
 * bracket nobody typed. So, in a send's text:
 *
 * - every `⟦…⟧` span (a header, a section label, a pause marker) is dropped, and a stray `⟦` or `⟧`;
 * - every `[↩ …]` reply line is dropped, and a stray `↩`;
 * - a reference `[Ann](tg:@ann)` becomes `@ann` (a mention Telegram links), `[Ann](tg:user/42)`
 *   becomes `Ann`; the typed-reference escape `\(tg:` likewise;
 * - its own label at the start of a line (`Mira (you):`) is dropped, and the `[voice 3 s]` mark her
 *   voice notes carry in her history (tasks/handlers/voice-send.ts);
 * - Markdown Telegram cannot show as formatting — a `# heading` marker — is dropped, its words
 *   kept (bold, italic, code, links become entities: base/text-format.ts).
 *
 * What is left is trimmed; a text that was nothing but markup is refused (the plan's other tasks
 * still run). Pure: no GramJS, no clock.
 */

export interface ChatText {
  /** The text to send ("" when nothing but markup was left). */
  readonly text: string;
  /** What was taken out, for the log line ("" when the text was clean). */
  readonly removed: string;
}

const SPAN = /⟦[^⟦⟧\n]{0,300}⟧/gu;
const STRAY_BRACKET = /[⟦⟧]/gu;
const REPLY_LINE = /\[↩(?:[^[\]\n]|\[[^\]\n]{0,200}\](?:\([^)\n]{0,200}\))?){0,300}\]/gu;
const STRAY_ARROW = /↩/gu;
const REFERENCE = /\[([^\]\n]{1,200})\]\\?\(tg:(?:@([A-Za-z0-9_]{3,32})|user\/\d{1,20})\)/gu;
const BARE_REF = /\\?\(tg:(?:@[A-Za-z0-9_]{3,32}|user\/\d{1,20})\)/gu;
const HEADING = /^[ \t]{0,3}#{1,6}[ \t]+/gmu;
const VOICE_MARK = /^[ \t]*\[voice \d{1,4} s\][ \t]*/gmu;

/** `text` as it may reach a chat (see the module comment); `selfName` is the persona's name. */
export function chatText(text: string, selfName: string): ChatText {
  const removed = new Set<string>();
  const note = (what: string) => () => {
    removed.add(what);
    return "";
  };
  let t = text.replace(SPAN, note("⟦…⟧ headers")).replace(STRAY_BRACKET, note("⟦…⟧ headers"));
  t = t.replace(REPLY_LINE, note("[↩ reply to …] lines")).replace(STRAY_ARROW, note("[↩ reply to …] lines"));
  t = t.replace(REFERENCE, (_all, name: string, username: string | undefined) => {
    removed.add("(tg:…) references");
    return username !== undefined ? `@${username}` : name;
  });
  t = t.replace(BARE_REF, note("(tg:…) references"));
  if (selfName !== "") {
    const self = new RegExp(`^[ \\t]*${escapeRegExp(selfName)} \\(you\\)[ \\t]*:?[ \\t]*`, "gimu");
    t = t.replace(self, note("your own label"));
  }
  t = t.replace(HEADING, note("# heading markers"));
  t = t.replace(VOICE_MARK, note("[voice …] marks"));
  // What the removals left: spaces doubled inside a line, blank lines at the ends.
  t = t
    .split("\n")
    .map((line) => line.replace(/[ \t]{2,}/g, " ").replace(/[ \t]+$/, ""))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { text: t, removed: [...removed].join(", ") };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
