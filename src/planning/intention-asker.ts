/**
 * Who asked for an intention a plan sets (`schedule`): the rule a `remember` follows. The asker
 * is the author of the message the plan names (`from`, one of the messages it answers), else of
 * the message it answers — but when several people wrote the messages answered, the newest is no
 * evidence of who asked (dave asks for a reminder, bob writes "lol" after it): unnamed, it is
 * refused, never guessed. An intention's own plan (no message answered) keeps its asker.
 */
export interface AskerFacts {
  /** The `schedule`'s `from` (validated: one of the messages answered). */
  readonly from?: number | undefined;
  /** The newest message answered (undefined: an intention's plan alone). */
  readonly lastId?: number | undefined;
  /** The authors of the messages answered (the persona's own left out). */
  readonly authors: ReadonlySet<string>;
  /** The sender of a message of the chat. */
  readonly senderOf: (messageId: number) => string | undefined;
  /** For whom the due intention this plan answers was set (an intention's plan alone). */
  readonly dueFor?: string | undefined;
}

export type Asker =
  | { readonly ok: true; readonly forUser?: string; readonly inReplyTo?: number }
  | { readonly ok: false; readonly reason: string };

export function intentionAsker(f: AskerFacts): Asker {
  const source = f.from ?? (f.authors.size <= 1 ? f.lastId : undefined);
  if (source === undefined) {
    if (f.lastId !== undefined)
      return {
        ok: false,
        reason:
          "several people wrote the messages you answer: name the message of the one who asked for it with from",
      };
    return { ok: true, ...(f.dueFor !== undefined ? { forUser: f.dueFor } : {}) };
  }
  const forUser = f.senderOf(source);
  return { ok: true, inReplyTo: source, ...(forUser !== undefined ? { forUser } : {}) };
}
