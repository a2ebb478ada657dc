/**
 * What a plan means to do later (`schedule`, `cancel_schedule`; life/intentions.ts): a schedule
 * becomes a `schedule` task of the graph (stored when it runs, admitted like a send,
 * life/schedule-handler.ts), a cancel drops the intention now — each only when the plan answers
 * whoever asked for it. What is refused is told to the chat's next plan (refusal-notes.ts).
 */
import type { Intention } from "../store/intentions";
import type { Clock } from "../base/types";
import type { NewTask, ReceivedItem } from "../tasks/task";
import { scheduleDue, type PlanTask } from "./plan-schema";
import { intentionAsker } from "./intention-asker";
import type { RefusalNote } from "./refusal-notes";

/** What planning asks of the intentions engine. */
export interface IntentionsPort {
  /** The chat's open intentions, soonest first. */
  openIn(chatId: string): readonly Intention[];
  /** What became of this chat's last schedules that were not set (told to its next plan, once). */
  takeNotes?(chatId: string): readonly { date: number; text: string }[];
  cancel(id: number, by: string): Intention | undefined;
}

/** The plan's round, as far as its intentions go. */
export interface IntentionRound {
  readonly intentions: IntentionsPort;
  readonly clock: Clock;
  readonly timeZone: string;
  /** The addressed messages it answers. */
  readonly items: readonly ReceivedItem[];
  /** The newest of them (undefined: an intention's plan alone). */
  readonly lastId: number | undefined;
  /** The authors of the messages answered (the persona's own left out). */
  readonly answeredAuthors: ReadonlySet<string>;
  /** Who wrote the burst, or for whom the due intention was set (the task's authors). */
  readonly authors: readonly string[] | undefined;
  /** The chat's pending intentions the request showed. */
  readonly pending: readonly Intention[];
  readonly senderOf: (messageId: number) => string | undefined;
}

/** The plan's schedules as tasks, and what it asked for that was not done (cancels dropped now). */
export function planIntentions(
  tasks: readonly PlanTask[],
  r: IntentionRound,
): { readonly schedules: NewTask<"schedule">[]; readonly notes: RefusalNote[] } {
  const notes: RefusalNote[] = [];
  const schedules: NewTask<"schedule">[] = [];
  for (const t of tasks) {
    if (t.kind === "schedule") {
      const now = r.clock.now();
      // Who asked: the message named or answered, as for a remember (intention-asker.ts).
      const asker = intentionAsker({
        from: t.from,
        lastId: r.lastId,
        authors: r.answeredAuthors,
        senderOf: r.senderOf,
        dueFor: r.authors?.[0],
      });
      if (!asker.ok) {
        notes.push({
          date: now,
          text: `Your schedule "${t.note.slice(0, 80)}" was not set: ${asker.reason}`,
        });
        continue;
      }
      // Stored when its task runs, admitted like a send (life/schedule-handler.ts), exactly once.
      schedules.push({
        kind: "schedule",
        payload: {
          note: t.note,
          dueAt: scheduleDue(t, r.timeZone, now) ?? now,
          setAt: now,
          ...(asker.inReplyTo !== undefined ? { inReplyTo: asker.inReplyTo } : {}),
          ...(asker.forUser !== undefined ? { forUser: asker.forUser } : {}),
          ...(r.items.length > 0 ? { answers: r.items.map((i) => i.messageId) } : {}),
        },
        after: [],
      });
    } else if (t.kind === "cancel_schedule") {
      // Only a plan answering whoever asked for it cancels it (the owner and the console too,
      // elsewhere): dave cannot drop the reminder alice asked for.
      const target = r.pending.find((x) => x.id === t.id);
      const asker = target?.forUser;
      const answering =
        r.lastId !== undefined ? r.senderOf(r.lastId) : (r.authors ?? []).find((a) => a === asker);
      if (target !== undefined && asker !== undefined && answering !== asker) {
        notes.push({
          date: r.clock.now(),
          text: `Your cancel_schedule id ${t.id} was not done: it was asked for by someone else, and only they (or the owner) may cancel it`,
        });
        continue;
      }
      r.intentions.cancel(t.id, "by the persona's plan");
    }
  }
  return { schedules, notes };
}
