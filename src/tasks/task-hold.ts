/**
 * What the admission gate may say besides yes and no: not yet. A held task stays pending until
 * `until` (its row says so, so a restart keeps the wait) and is asked again then; its dependents
 * wait with it. The account's hourly send ceiling holds the owner's people's answers this way
 * (policy/send-ceiling.ts) instead of dropping them.
 */
export interface TaskHold {
  /** When to ask again (ms). */
  readonly until: number;
  readonly reason: string;
}

export const isHold = (a: string | TaskHold | undefined): a is TaskHold => typeof a === "object";
