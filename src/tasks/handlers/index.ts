/**
 * The task handlers, one file per kind, and the map the scheduler runs them from. A kind
 * without a handler here does not compile (HandlerMap has a key for every TaskKind).
 */
import type { ImplicitAddressing } from "../../inbound/addressing-implicit";
import type { Llm } from "../../llm/llm";
import type { LaneSummaries } from "../../summary/lane-summaries";
import type { HandlerMap } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";
import { addressHandler } from "./address";
import { blockHandler } from "./block";
import { reactHandler } from "./react";
import { readHandler } from "./read";
import { receivedHandler, type ReceivedHandlerDeps } from "./received";
import { sendHandler } from "./send";
import { stickerHandler } from "./sticker";
import { summarizeHandler } from "./summarize";
import { typingHandler } from "./typing";
import { unblockHandler } from "./unblock";
import { waitHandler } from "./wait";

export type { ActionHandlerDeps } from "./action-deps";

export interface TaskHandlerDeps {
  /** Planning (the `received` kind). */
  readonly received: ReceivedHandlerDeps;
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
