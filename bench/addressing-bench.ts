/**
 * Addressing calls per 100 group messages in smart mode: the real runtime on the emulator (real
 * GramJS update handling, SQLite, the prefilter, the `address` tasks and their gathering) on a
 * fake clock, fed the "ordinary chatter" script (chatter.ts). The LLM is a counting stand-in —
 * the figure is how many addressing requests are made, not what they cost — which says
 * "addressed" only for the messages the script means for the persona. Goal ≤ 20.
 */
import { parsePersona } from "../src/config/persona";
import type { Llm, JsonOutcome, JsonRequest } from "../src/llm/llm";
import type { Plan, Planner } from "../src/planning/planner";
import type { PlanTask } from "../src/planning/plan-schema";
import { FakeClock } from "../src/base/clock";
import { type EmuUser } from "../emulator";
import { NEW_LABEL } from "../src/inbound/addressing-call";
import type { AddressingStats } from "../src/inbound/addressing-implicit";
import { ordinaryChatter } from "./chatter";
import { benchWorld, startRig, tearDownRig } from "./rig";

export interface AddressingFigures {
  /** Addressing requests per 100 group messages, mean over the seeds. */
  readonly callsPer100: number;
  /** The worst seed. */
  readonly maxCallsPer100: number;
  readonly seeds: number;
  readonly target: number;
  /** The first seed's counters (prefilter skips per reason, candidates, calls, answers). */
  readonly sample: AddressingStats & {
    readonly messages: number;
    readonly explicit: number;
    readonly meantForPersona: number;
  };
}

const persona = (mode: "smart" | "talkative") =>
  `# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n\n# Group Mode\n${mode}\n\n# Start Typing Delay\n0\n`;

/** Says "addressed" when a new message carries the script's marker; counts nothing itself (the runtime does). */
class ScriptedLlm implements Llm {
  modelFor(): string {
    return "counting-stand-in";
  }
  onUsage(): () => void {
    return () => {};
  }
  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    const text = req.contents.flatMap((c) => c.parts.map((p) => ("text" in p ? p.text : ""))).join("\n");
    const fresh = text.split(NEW_LABEL)[1] ?? "";
    const hit = fresh.split("\n").find((l) => l.includes("(for-persona)"));
    const id = hit ? Number(/^⟦#(\d+)/.exec(hit)?.[1]) : undefined;
    const value = {
      reason: "scripted",
      addressed: hit !== undefined,
      confidence: hit ? 0.9 : 0.1,
      ...(id ? { message_id: id } : {}),
      wanna_interject: false,
      interject: 0,
      is_lightweight: false,
    };
    return { ok: true, value: value as T, model: "counting-stand-in", calls: 1 };
  }
}

/** Answers every planning round with one short message (the persona speaks, so follow-ups exist). */
const planner: Planner = {
  async plan(): Promise<Plan> {
    return { tasks: [{ kind: "send", text: "sure", deps: [] } as PlanTask], rejected: [] };
  },
};

async function runOnce(seed: number, mode: "smart" | "talkative"): Promise<AddressingFigures["sample"]> {
  const clock = new FakeClock();
  const world = benchWorld("bench-addressing", clock);
  const { emu } = world;
  const account = emu.addAccount({ firstName: "Mira", username: "mira_ai" });
  const users: Record<string, EmuUser> = Object.fromEntries(
    ["alice", "bob", "carol", "dave"].map((n) => [n, emu.addUser({ firstName: n, username: n })]),
  );
  const group = emu.createSupergroup({ title: "Bench", members: [account, ...Object.values(users)] });
  const rig = startRig(world, account, {
    persona: parsePersona(persona(mode), { file: "bench", promptDirs: [] }),
    selfUsername: "mira_ai",
    planner,
    llm: new ScriptedLlm(),
    catchUpOnStart: false,
    scheduler: { tickMs: 100 },
  });
  const { runtime } = rig;
  try {
    const script = ordinaryChatter({ personaName: "Mira", seed });
    const ids: number[] = [];
    for (const line of script) {
      await clock.advance(line.gapMs);
      const posted = await emu.post({
        chat: group,
        from: users[line.from]!,
        text: line.text,
        ...(line.replyTo !== undefined ? { replyTo: ids[line.replyTo]! } : {}),
      });
      ids.push(posted.id);
    }
    await clock.advance(60_000);
    const s = runtime.addressing.stats;
    return {
      ...s,
      skipped: { ...s.skipped },
      messages: script.length,
      explicit: script.filter((l) => l.kind === "explicit").length,
      meantForPersona: script.filter((l) => l.kind === "follow-up").length,
    };
  } finally {
    await tearDownRig(rig, 1000);
  }
}

/**
 * Runs the chatter script with `seeds` different seeds, in smart mode (the goal's figure) or in
 * talkative mode (which also judges ordinary chatter, at most once per chatter cooldown per chat;
 * the stand-in never wants to join in, so the persona speaks as often as in smart mode).
 */
export async function benchAddressing(
  o: { seeds?: number; mode?: "smart" | "talkative" } = {},
): Promise<AddressingFigures> {
  const seeds = o.seeds ?? 5;
  const runs: AddressingFigures["sample"][] = [];
  for (let seed = 1; seed <= seeds; seed++) runs.push(await runOnce(seed, o.mode ?? "smart"));
  const per100 = runs.map((r) => (100 * r.calls) / r.messages);
  return {
    callsPer100: per100.reduce((a, b) => a + b, 0) / per100.length,
    maxCallsPer100: Math.max(...per100),
    seeds,
    target: 20,
    sample: runs[0]!,
  };
}
