/**
 * A plan's `remember`, made a task of the graph (remember-handler.ts: admitted, and checked for
 * age, like a send). Who it is about and who said it are decided here, from the messages: the
 * message that says it is the one the plan names, else the one answered — but when several
 * people wrote the messages answered, the newest is no evidence of who said it (dave plants a
 * fact, bob writes "lol" after it): unnamed, it is not stored. What the persona says about
 * itself is its own statement whoever wrote the burst (memory/says-itself.ts).
 */
import type { EntityLookup } from "../context/speaker-directory";
import type { MessageStore, StoredMessage } from "../store/messages";
import { resolveSubject, tellerOf } from "../memory/subject";
import { selfFactTeller } from "../memory/says-itself";
import type { RememberPayload } from "./expand-plan";
import type { PlanTask } from "./plan-schema";

/** The plan's round, as far as its memories go. */
export interface RememberRound {
  readonly chatId: string;
  readonly isDm: boolean;
  /** The persona's account id. */
  readonly selfId: string;
  readonly messages: Pick<MessageStore, "get">;
  /** Someone the account knows by an @username (the entity store), not only who is in view. */
  readonly entities: Pick<EntityLookup, "findByUsername">;
  /** A user's @username as last seen, to resolve `remember {about: "@name"}`. */
  readonly usernameOf?: ((userId: string) => string | undefined) | undefined;
  /** The addressed messages as stored, oldest first. */
  readonly targets: readonly StoredMessage[];
  /** People present in the history (memory/subject.ts). */
  readonly present: readonly string[];
  /** The newest message answered (undefined: an intention's plan alone). */
  readonly lastId: number | undefined;
  /** Every task of the plan (its sends: what she says of herself). */
  readonly tasks: readonly PlanTask[];
  /** A remember not stored, and why (logged with the plan's other bounds). */
  readonly onCut: (what: string) => void;
}

/** The `remember` task's payload for a plan's remember, or undefined: not stored. */
export function rememberFrom(
  r: RememberRound,
): (t: Extract<PlanTask, { kind: "remember" }>) => RememberPayload | undefined {
  const { chatId, isDm, selfId, targets, lastId } = r;
  const where = { chatId, isDm, selfId, targets };
  const authors = new Set(targets.filter((m) => !m.isAgent).map((m) => m.senderId));
  return (t) => {
    const aboutMe = t.about?.trim().toLowerCase() === "me";
    // About the persona: its own memory only when it says so itself in this plan (its sends);
    // else it is a claim about it by whoever said it, sourced like any other (issue 36).
    const self = aboutMe
      ? selfFactTeller(
          t.content,
          r.tasks.flatMap((x) => (x.kind === "send" ? [x.text] : [])),
          targets.filter((m) => !m.isAgent),
        )
      : undefined;
    const own = self?.own === true;
    const sourceId =
      t.from ??
      (self?.own === false ? self.sourceId : undefined) ??
      (authors.size <= 1 || own ? lastId : undefined);
    if (sourceId === undefined) {
      r.onCut("a remember: dropped (several people wrote the messages answered and it named none with from)");
      return undefined;
    }
    const source = r.messages.get(chatId, sourceId);
    // Left out, it is about the author of the message that says it (dave's "I'm vegetarian"
    // in a burst bob wrote last is about dave).
    const subject = resolveSubject(t.about, {
      ...where,
      targets: source ? [source] : targets,
      message: (id) => r.messages.get(chatId, id),
      present: r.present,
      usernameOf: r.usernameOf ?? (() => undefined),
      // Someone the account knows by that @username (the entity store), not only who is in view.
      memberByUsername: (name) => {
        const id = r.entities.findByUsername(name)?.peerId;
        return id !== undefined && id !== selfId && !id.startsWith("-") ? id : undefined;
      },
    });
    const toldBy = own
      ? selfId
      : aboutMe
        ? source
          ? source.isAgent
            ? selfId
            : source.senderId
          : isDm
            ? chatId
            : undefined
        : tellerOf(subject, source, where);
    return {
      content: t.content,
      ...(subject !== undefined ? { subject } : {}),
      ...(toldBy !== undefined ? { toldBy } : {}),
      sourceId,
    };
  };
}
