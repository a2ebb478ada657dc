import type { Clock } from "../base/types";
import type { RejectedTask } from "./plan-schema";

/** A note for the persona, placed among the messages by its date. */
export interface RefusalNote {
  readonly date: number;
  readonly text: string;
}

/** At most this many refused tasks of a plan are told to the next one. */
const MAX_REFUSAL_NOTES = 3;

/**
 * What the last plan of each chat could not do (tasks the validator refused, schedules not set,
 * cancels not allowed), told to the chat's next plan — once, in memory: a restart forgets them.
 */
export class RefusalNotes {
  private readonly byChat = new Map<string, RefusalNote[]>();

  /** The notes the chat's next plan is told (undefined: none). */
  of(chatId: string): readonly RefusalNote[] | undefined {
    return this.byChat.get(chatId);
  }

  /** Notes from outside the plan (schedules their tasks could not store): the newest are kept. */
  addNewest(chatId: string, notes: readonly RefusalNote[]): void {
    if (notes.length > 0)
      this.byChat.set(chatId, [...(this.byChat.get(chatId) ?? []), ...notes].slice(-MAX_REFUSAL_NOTES));
  }

  /** A plan came back: what was told is done with; its own refused tasks are told next. */
  replaceWithRejected(chatId: string, rejected: readonly RejectedTask[], clock: Clock): void {
    this.byChat.delete(chatId);
    if (rejected.length > 0)
      this.byChat.set(
        chatId,
        rejected.slice(0, MAX_REFUSAL_NOTES).map((r) => ({
          date: clock.now(),
          text: `Your last plan's task ${r.index + 1}${r.kind ? ` (${r.kind})` : ""} was not done: ${r.reason.slice(0, 200)}`,
        })),
      );
  }

  /** More of the plan's own refusals (its schedules and cancels): the first are kept. */
  addFirst(chatId: string, notes: readonly RefusalNote[]): void {
    if (notes.length > 0)
      this.byChat.set(chatId, [...(this.byChat.get(chatId) ?? []), ...notes].slice(0, MAX_REFUSAL_NOTES));
  }
}
