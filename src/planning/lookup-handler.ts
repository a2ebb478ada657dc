/**
 * `look_up`: a plan asked to look something up (a question: Google Search) or to open a link (URL
 * context) before answering. The task runs one grounded call (llm/grounded.ts) — nothing is
 * fetched from here — and hands what it found to a new planning round of the same messages, which
 * answers from it (the ⟦looked up⟧ part of the request, planning/lookup-section.ts). So a look-up
 * works whatever the model does with tools and a JSON schema in one call: two plain calls.
 *
 * Right before it runs it passes the look-up rules (policy/lookup-rules.ts: who may ask, the day's
 * caps) and the admission gate (the owner's switches, the token caps) like every LLM call; a refusal
 * or a failure is not an error: the next round is told there is nothing and answers without it.
 * The answer-age check holds too: a look-up that waited past the limit answers nothing.
 *
 * Exactly once, like a send (store/lookup-runs.ts): the call is marked started before it goes out
 * and what it came to is stored before the task is marked done. A restart after the answer plans
 * with the stored result (no second call, no second fee); a restart in the middle of the call asks
 * once more (the lost call counts against the day's caps, and the rules are asked again), and a
 * second interrupted call gives up: she answers without it.
 */
import { domainOf } from "../base/link-preview";
import type { LookupClient } from "../llm/grounded";
import type { TaskHandler } from "../tasks/task-handler";
import type { LookupNote, Task } from "../tasks/task";
import { tooLate, type AnswerAgeDeps } from "../tasks/handlers/answer-age";
import { LLM_RATE_KEY } from "../tasks/llm-wait";
import type { LookupRun } from "../store/lookup-runs";

/** Grounded calls one look-up may start, restarts included (the second only after a lost first). */
const MAX_LOOKUP_CALLS = 2;

declare module "../tasks/task" {
  interface TaskPayloads {
    /**
     * `query` / `url`: what to look up; `items` and `authors`: the planning round's (the next round
     * plans the same messages); `answers`: those message ids (the answer-age check, and a newer
     * message's replan owes them an answer); `userId`: who asked (caps, costs).
     */
    look_up: {
      query?: string;
      url?: string;
      items: ReceivedItem[];
      authors?: string[];
      answers: number[];
      userId?: string;
    };
  }
}

/** The answer-age limit counts as for sends (tasks/handlers/answer-age.ts). */
export interface LookupHandlerDeps extends AnswerAgeDeps {
  /** The grounded calls; absent (no key, the sandbox's dry run): every look-up finds nothing. */
  readonly client?: LookupClient;
  /** Why this look-up may not run now (policy/lookup-rules.ts); undefined: it may. */
  readonly refusal: (chatId: string, userId: string | undefined, what: string) => string | undefined;
  /** Each look-up task's calls, durable across restarts (store/lookup-runs.ts). */
  readonly runs: {
    get(taskId: number): LookupRun | undefined;
    start(taskId: number, chatId: string, userId: string | undefined, now: number): void;
    end(taskId: number, note: string): void;
  };
}

/** A URL a look-up may ask Gemini to open: http(s) with a host; anything else is refused here. */
function lookUpUrl(raw: string | undefined): { url?: string; bad?: string } {
  if (raw === undefined) return {};
  const t = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(t) ? t : `https://${t}`;
  if (!/^https?:\/\//i.test(withScheme) || domainOf(withScheme) === undefined || withScheme.length > 2048)
    return { bad: `not a web link: ${JSON.stringify(t.slice(0, 80))}` };
  return { url: withScheme };
}

export function lookupHandler(d: LookupHandlerDeps): TaskHandler<"look_up"> {
  // What a call found that the database did not take yet (a full disk): the task runs again once
  // it takes writes, and stores this instead of calling again.
  const unsaved = new Map<number, LookupNote>();
  return {
    rateKeys: () => [LLM_RATE_KEY],
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const p = task.payload;
      const run = d.runs.get(task.id);
      let note: LookupNote;
      const kept = unsaved.get(task.id);
      if (kept !== undefined && run?.note === undefined) {
        d.runs.end(task.id, JSON.stringify(kept));
        unsaved.delete(task.id);
        note = kept;
      } else if (run?.note !== undefined) {
        // The call answered before a restart: its result, not a second call.
        d.logger.info(
          { component: "lookup", chatId: task.chatId, taskId: task.id, calls: run.calls },
          "look-up answered before the restart: its stored result is used",
        );
        note = JSON.parse(run.note) as LookupNote;
      } else note = await lookOnce(d, task, run, unsaved);
      return {
        type: "done",
        spawn: [
          {
            kind: "received",
            payload: {
              items: p.items,
              ...(p.authors !== undefined ? { authors: p.authors } : {}),
              lookups: [note],
            },
            after: [],
          },
        ],
      };
    },
  };
}

/** The look-up's rules, then its grounded call, marked started before and stored after. */
async function lookOnce(
  d: LookupHandlerDeps,
  task: Task<"look_up">,
  run: LookupRun | undefined,
  unsaved: Map<number, LookupNote>,
) {
  const p = task.payload;
  const what = [p.query, p.url].filter(Boolean).join(" / ");
  const url = lookUpUrl(p.url);
  const base = {
    ...(p.query !== undefined ? { query: p.query } : {}),
    ...(p.url !== undefined ? { url: p.url } : {}),
    at: d.clock.now(),
  };
  const log = { component: "lookup", chatId: task.chatId, taskId: task.id };
  if (url.bad !== undefined) {
    d.logger.warn({ ...log, url: p.url?.slice(0, 200) }, `look-up refused: ${url.bad}`);
    return { ...base, none: url.bad };
  }
  if (run !== undefined && run.calls >= MAX_LOOKUP_CALLS) {
    d.logger.warn(
      { ...log, calls: run.calls },
      "look-up interrupted by restarts again: answering without it (no third call)",
    );
    return { ...base, none: "the look-up was interrupted" };
  }
  // A lost call counts against the caps (store/lookups.ts), so the rules may say no now.
  const refused = d.refusal(task.chatId, p.userId, what);
  if (refused !== undefined) return { ...base, none: `not looked up: ${refused}` };
  if (!d.client) return { ...base, none: "looking things up is not available (no model)" };
  if (run !== undefined)
    d.logger.warn({ ...log, calls: run.calls }, "look-up interrupted by a restart: asking once more");
  d.runs.start(task.id, task.chatId, p.userId, d.clock.now());
  let note: LookupNote;
  try {
    const a = await d.client.lookUp({
      ...(p.query !== undefined ? { query: p.query } : {}),
      ...(url.url !== undefined ? { url: url.url } : {}),
      chatId: task.chatId,
      ...(p.userId !== undefined ? { userId: p.userId } : {}),
    });
    const unread = a.urls.filter((u) => u.status !== "success");
    note = {
      ...base,
      text: a.text,
      ...(a.sources.length > 0 ? { sources: a.sources } : {}),
      ...(unread.length > 0 ? { unread } : {}),
    };
  } catch (e) {
    d.logger.warn(
      { ...log, query: p.query, url: p.url, err: String(e) },
      "look-up failed: answering without it",
    );
    note = { ...base, none: "the look-up failed" };
  }
  try {
    d.runs.end(task.id, JSON.stringify(note));
  } catch (e) {
    if (unsaved.size >= 1_000) unsaved.clear(); // bounded, whatever the disk does
    unsaved.set(task.id, note);
    throw e;
  }
  return note;
}
