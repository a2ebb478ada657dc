/**
 * The task handlers, one file per kind, and the map the scheduler runs them from. A kind
 * without a handler here does not compile (HandlerMap has a key for every TaskKind).
 */
import type { ImplicitAddressing } from "../inbound/addressing-implicit";
import type { Llm } from "../llm/llm";
import type { LaneSummaries } from "../summary/lane-summaries";
import type { HandlerMap } from "../tasks/task-handler";
import type { ActionHandlerDeps } from "../tasks/handlers/action-deps";
import { addressHandler } from "../inbound/address-handler";
import { blockHandler } from "../tasks/handlers/block";
import { reactHandler } from "../tasks/handlers/react";
import { readHandler } from "../tasks/handlers/read";
import { receivedHandler, type ReceivedHandlerDeps } from "../planning/received-handler";
import { rememberHandler, type RememberHandlerDeps } from "../planning/remember-handler";
import { scheduleHandler, type ScheduleHandlerDeps } from "../life/schedule-handler";
import { lookupHandler, type LookupHandlerDeps } from "../planning/lookup-handler";
import { sendHandler } from "../tasks/handlers/send";
import { stickerHandler } from "../tasks/handlers/sticker";
import { summarizeHandler } from "../summary/summarize-handler";
import { typingHandler } from "../tasks/handlers/typing";
import { unblockHandler } from "../tasks/handlers/unblock";
import { waitHandler } from "../tasks/handlers/wait";

export type { ActionHandlerDeps } from "../tasks/handlers/action-deps";

export interface TaskHandlerDeps {
  /** Planning (the `received` kind). */
  readonly received: ReceivedHandlerDeps;
  /** A plan's memories, stored when their task is admitted. */
  readonly remember: RememberHandlerDeps;
  /** A plan's intentions, stored when their task is admitted (exactly once). */
  readonly schedule: ScheduleHandlerDeps;
  /** A plan's look-ups (grounded calls), then a new planning round with what they found. */
  readonly lookUp: LookupHandlerDeps;
  /** The chat actions: send, sticker, react, typing, read, wait, block, unblock. */
  readonly actions: ActionHandlerDeps;
  /** Judges `address` tasks (smart and talkative groups). */
  readonly addressing: Pick<ImplicitAddressing, "judge">;
  /** Runs `summarize` tasks. */
  readonly summaries: Pick<LaneSummaries, "fold">;
  /** The LLM, for the model rate keys of the addressing and summary calls (absent: no LLM). */
  readonly llm?: Pick<Llm, "modelFor">;
}

export function taskHandlers(d: TaskHandlerDeps): HandlerMap {
  const llm = d.llm ? { llm: d.llm } : {};
  return {
    received: receivedHandler(d.received),
    remember: rememberHandler(d.remember),
    schedule: scheduleHandler(d.schedule),
    look_up: lookupHandler(d.lookUp),
    typing: typingHandler(d.actions),
    send: sendHandler(d.actions),
    sticker: stickerHandler(d.actions),
    react: reactHandler(d.actions),
    wait: waitHandler(d.actions),
    read: readHandler(d.actions),
    block: blockHandler(d.actions),
    unblock: unblockHandler(d.actions),
    address: addressHandler({ addressing: d.addressing, ...llm }),
    summarize: summarizeHandler({ summaries: d.summaries, ...llm }),
  };
}
