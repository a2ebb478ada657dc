/**
 * Composition: memory by meaning (memory/meaning.ts, docs/memory.md "Recall by meaning") — the
 * persona's embedder, the vectors of its memories in the same database, and the background job
 * that embeds them, held while the day's token budget is spent or the owner paused every chat. Absent without an embedder
 * (`LLM_EMBED` off, or no provider that embeds): recall is by words, as before.
 */
import { MemoryMeaning } from "../memory/meaning";
import { ALL_CHATS } from "../store/chat-settings";
import { MemoryVectorStore } from "../store/memory-vectors";
import type { AgentRuntimeOptions, Stage } from "./agent-options";
import type { Policy } from "./compose-policy";
import type { Stores } from "./compose-stores";

export function composeMeaning(
  o: AgentRuntimeOptions,
  s: Stage,
  st: Stores,
  p: Policy,
): MemoryMeaning | undefined {
  if (o.embedder === undefined) return undefined;
  return new MemoryMeaning({
    embedder: o.embedder,
    vectors: new MemoryVectorStore(o.db, s.agent, o.vectorExtension ? { load: o.vectorExtension } : {}),
    memories: st.memories,
    clock: s.clock,
    logger: s.logger,
    // Spends tokens like any call: held while the day's budget is spent or the owner paused everything.
    held: () => p.caps.tokensSpent() || st.settings.get(ALL_CHATS).paused,
  });
}
