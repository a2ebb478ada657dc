import { parsePersona } from "../src/config/persona";
import type { PlanTask } from "../src/planning/plan-schema";
import type { Plan, Planner } from "../src/planning/planner";
import { FakeClock } from "../src/base/clock";
import { benchWorld, startRig, tearDownRig } from "./rig";

/** One burst: how many planning calls it cost and how soon the persona typed after it. */
interface BurstFigures {
  readonly messages: number;
  readonly gapMs: number;
  /** Planning calls (goal 1). */
  readonly planningCalls: number;
  /** Fake-clock ms from the burst's last message to the persona's first typing action after it. */
  readonly lastMessageToTypingMs: number;
  /** Messages the persona sent in answer. */
  readonly answers: number;
}

export interface BatchingFigures {
  readonly quietWindowSec: number;
  readonly dms: BurstFigures;
  readonly mentions: BurstFigures;
  /** The same bursts with `# Quiet Window 0` (plan on the next tick: the rule before humane batching). */
  readonly withoutQuietWindow: { readonly dms: BurstFigures; readonly mentions: BurstFigures };
  /** One lone message: fake-clock ms from it to the persona's typing (the single-message latency). */
  readonly singleMessageToTypingMs: number;
  /** The same with `# Quiet Window 0`: what a single message waited before humane batching. */
  readonly singleMessageWithoutQuietWindowMs: number;
}

const persona = (quietSec?: number) =>
  parsePersona(
    `# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n\n# Read Delay\n2\n\n# Start Typing Delay\n1\n` +
      (quietSec !== undefined ? `\n# Quiet Window\n${quietSec}\n` : ""),
    { file: "agents/Mira.md", promptDirs: [] },
  );

/** Counts planning calls; answers each at once with one short message. */
class CountingPlanner implements Planner {
  calls = 0;
  async plan(): Promise<Plan> {
    this.calls++;
    return {
      tasks: [{ kind: "send", text: "one answer for all of it", deps: [] } as unknown as PlanTask],
      rejected: [],
    };
  }
}

/**
 * P3: a burst on the emulator — the real runtime and GramJS client, a fake clock, a planner that
 * answers at once (so the figures are the runtime's own waits, not an LLM's latency).
 */
async function burst(o: {
  kind: "dms" | "mentions";
  messages: number;
  gapMs: number;
  quietSec?: number;
}): Promise<BurstFigures> {
  const clock = new FakeClock();
  const world = benchWorld("bench-p3", clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const people = ["alice", "bob", "carol"].map((n) => emu.addUser({ firstName: n, username: n }));
  const group = emu.createSupergroup({ title: "Bench", members: [me, ...people] });
  const dm = emu.dm(me, people[2]!);
  const planner = new CountingPlanner();
  const rig = startRig(world, me, { persona: persona(o.quietSec), planner, catchUpOnStart: false });
  try {
    const chat = o.kind === "dms" ? dm : group;
    let last = 0;
    for (let i = 0; i < o.messages; i++) {
      if (i > 0) await clock.advance(o.gapMs);
      const from = o.kind === "dms" ? people[2]! : people[i % people.length]!;
      last = clock.now();
      await emu.post({
        chat,
        from,
        text: o.kind === "dms" ? `part ${i + 1} of what I mean` : `@mira_bench question ${i + 1}`,
      });
    }
    await clock.advance(60_000);
    const typed = emu.traffic.typing(chat).filter((t) => t.account === me && t.at > last);
    return {
      messages: o.messages,
      gapMs: o.gapMs,
      planningCalls: planner.calls,
      lastMessageToTypingMs: typed.length ? typed[0]!.at - last : Number.NaN,
      answers: emu.history(chat).filter((m) => m.fromId === me.id).length,
    };
  } finally {
    await tearDownRig(rig);
  }
}

export async function benchBatching(): Promise<BatchingFigures> {
  const quietWindowSec = persona().quietWindowSec;
  return {
    quietWindowSec,
    dms: await burst({ kind: "dms", messages: 3, gapMs: 2000 }),
    mentions: await burst({ kind: "mentions", messages: 5, gapMs: 1000 }),
    withoutQuietWindow: {
      dms: await burst({ kind: "dms", messages: 3, gapMs: 2000, quietSec: 0 }),
      mentions: await burst({ kind: "mentions", messages: 5, gapMs: 1000, quietSec: 0 }),
    },
    singleMessageToTypingMs: (await burst({ kind: "dms", messages: 1, gapMs: 0 })).lastMessageToTypingMs,
    singleMessageWithoutQuietWindowMs: (await burst({ kind: "dms", messages: 1, gapMs: 0, quietSec: 0 }))
      .lastMessageToTypingMs,
  };
}
