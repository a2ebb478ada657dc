/**
 * `npm run sandbox -- --echo`: an offline planner for trying the product without a Gemini key.
 * It is not a model and says so everywhere its plans show: each plan it makes is a canned one —
 * a 👍 reaction to the message answered, a reply quoting it, and a memory of it — written as a
 * model's JSON answer and checked by the same `validatePlan` as Gemini's, so it goes through
 * everything a real plan does (the task graph, typing, sends, reactions, memories, the console's
 * plan view, labelled "not from a model"). A message that asks to be reminded ("remind me in 20
 * minutes") also gets a `schedule` (in that many minutes, else an hour), and an intention due with
 * no new message a send that says what it meant to do — so reminders can be tried with `/advance`.
 * Lane summaries get a canned summary the same way. It
 * makes no call, so it costs nothing and records no usage. Only the sandbox script builds it: it
 * is never reachable from `npm start` on real accounts.
 */
import { validatePlan, type PlanCheckContext } from "../planning/plan-schema";
import type { JsonOutcome, JsonRequest, Llm } from "../llm/llm";
import type { Plan, PlanMeta, Planner } from "../planning/planner";
import type { PlanPrompt } from "../planning/prompt";

/** How the echo planner's texts start: what it writes is never mistaken for a model's. */
const ECHO_MARK = "(echo, not from a model)";

/** The model name the echo's stand-ins report. */
const ECHO_MODEL = "echo (not a model)";

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** What the echo planner reads of the message it answers. */
export interface EchoMessage {
  readonly text: string;
  readonly senderName: string;
  /** The message's media, when it has any (a voice note is answered with one where offered). */
  readonly media?: { readonly kind: string };
}

export class EchoPlanner implements Planner {
  constructor(
    private readonly o: {
      /** A stored message of a chat (the runtime's message store). */
      readonly message: (chatId: string, id: number) => EchoMessage | undefined;
      /** Told each plan, in one line (the sandbox prints it). */
      readonly print?: (line: string) => void;
    },
  ) {}

  async plan(prompt: PlanPrompt, check: PlanCheckContext, meta: PlanMeta): Promise<Plan> {
    const id = check.answering;
    const m = id !== undefined ? this.o.message(meta.chatId, id) : undefined;
    const said = cut(m?.text.trim() || "(no text)", 300);
    const who = m?.senderName ?? "someone";
    // A model's answer, as Gemini would send it: the same checks apply (a bad id is refused).
    // Its own intention due, with no message: it says what it meant to do.
    const due = id === undefined ? (meta.due ?? []) : [];
    // "remind me in 20 minutes …": an intention (default in an hour), so reminders can be tried.
    const remind = check.intentions === true && m !== undefined && /\bremind\b/i.test(m.text);
    // "look up …", "search …", or a link with "what does it say": a look-up first (when offered),
    // then, with what it found in the request, an answer quoting it.
    const found = /⟦looked up⟧[\s\S]*?\nFound: ([^\n]*)/.exec(promptText(prompt))?.[1];
    const link = m ? /https?:\/\/\S+/.exec(m.text)?.[0] : undefined;
    const lookUp =
      check.lookUp === true &&
      found === undefined &&
      m !== undefined &&
      (/\b(look up|search|google)\b/i.test(m.text) || link !== undefined);
    if (lookUp || found !== undefined) {
      const tasks = lookUp
        ? [{ kind: "look_up", ...(link ? { url: link } : { query: cut(said, 200) }) }]
        : [{ kind: "send", text: `${ECHO_MARK} I looked it up: ${cut(found!, 200)}`, reply_to: id }];
      const checked = validatePlan(JSON.stringify({ tasks }), check);
      this.o.print?.(
        `[echo planner, not from a model] #${id}: ${checked.tasks.map((t) => t.kind).join(" · ")}`,
      );
      return { tasks: checked.tasks, rejected: checked.rejected, origin: "echo" };
    }
    const answer = {
      tasks: [
        ...due.map((d) => ({ kind: "send", text: `${ECHO_MARK} as I meant to: ${cut(d.note, 200)}` })),
        ...(remind
          ? [
              {
                kind: "schedule",
                note: `${ECHO_MARK} remind ${who}: ${cut(said, 200)}`,
                after_minutes: minutesIn(said),
              },
            ]
          : []),
        ...(id !== undefined
          ? [
              { kind: "react", emoji: "👍", message_id: id },
              {
                kind: "send",
                text: `${ECHO_MARK} ${who} said: “${cut(said, 200)}”`,
                reply_to: id,
                // A voice note answered with one where her # Voice offers it (planning/voice-offer.ts).
                ...(check.voice && m?.media?.kind === "voice" ? { voice: true } : {}),
              },
              { kind: "remember", content: `${ECHO_MARK} ${who} said: ${said}` },
            ]
          : []),
      ],
    };
    const checked = validatePlan(JSON.stringify(answer), check);
    this.o.print?.(
      `[echo planner, not from a model] ${id !== undefined ? `#${id}` : "the chat"}: ${checked.tasks.map((t) => t.kind).join(" · ")}${checked.rejected.length ? ` (refused: ${checked.rejected.map((r) => r.reason).join("; ")})` : ""}`,
    );
    return { tasks: checked.tasks, rejected: checked.rejected, origin: "echo" };
  }
}

/** "in 20 minutes", "in 2 h": the minutes a reminder asks for (default 60). */
function minutesIn(text: string): number {
  const m = /\bin\s+(\d{1,4})\s*(m|min|mins|minutes?|h|hours?)\b/i.exec(text);
  if (!m) return 60;
  const n = Number(m[1]);
  return Math.max(1, /^h/i.test(m[2]!) ? n * 60 : n);
}

/**
 * The echo's stand-in for the persona's other LLM calls: a lane summary gets a canned one (so the
 * Summaries page and the prompt's summary can be seen), checked by the caller's own schema; the
 * addressing call and media descriptions get nothing (as a dry run: no answer, no cost).
 */
export class EchoLlm implements Llm {
  modelFor(): string {
    return ECHO_MODEL;
  }

  onUsage(): () => void {
    return () => {};
  }

  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    if (req.purpose !== "summarise")
      return { ok: false, kind: "dry", reason: `--echo makes no ${req.purpose} call`, calls: 0 };
    const lines = req.contents
      .flatMap((c) => c.parts)
      .map((p) => ("text" in p ? p.text : ""))
      .join("\n")
      .split("\n")
      .filter((l) => l.trim() !== "").length;
    const text = JSON.stringify({
      goals_and_open_questions: [],
      decisions: [],
      facts: [`${ECHO_MARK} ${lines} lines of conversation folded into this summary offline`],
      outcomes: [],
      pending_actions: [],
    });
    const value = req.parse ? req.parse(text) : (req.schema.parse(JSON.parse(text)) as T);
    return { ok: true, value, model: ECHO_MODEL, calls: 1 };
  }
}

/** The text parts of a request's turns. */
function promptText(p: PlanPrompt): string {
  return p.contents
    .flatMap((c) => c.parts)
    .map((x) => ("text" in x ? x.text : ""))
    .join("\n");
}
