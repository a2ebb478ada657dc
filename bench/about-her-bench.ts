/**
 * Planning calls per 100 messages of a strict group that talks *about* the persona: the real
 * runtime on the emulator (real GramJS update handling, SQLite, addressing, the `address` tasks)
 * on a fake clock, fed a script of 100 messages — 10 that speak to her by name ("Mira, …"),
 * 20 that name her while talking about her ("Mira said the film was great"), 4 of those that in
 * fact speak to her without a vocative ("thanks Mira"), the rest chatter among the others. The
 * planner and the addressing model are counting stand-ins: the addressing stand-in says
 * "addressed" only for the lines the script means for her. A message that only names her should
 * cost at most the cheap addressing call, never a plan.
 */
import { parsePersona } from "../src/config/persona";
import type { Llm, JsonOutcome, JsonRequest } from "../src/llm/llm";
import type { Plan, Planner } from "../src/planning/planner";
import type { PlanTask } from "../src/planning/plan-schema";
import { FakeClock } from "../src/base/clock";
import type { EmuUser } from "../emulator";
import { NEW_LABEL } from "../src/inbound/addressing-call";
import { benchWorld, startRig, tearDownRig } from "./rig";

export interface AboutHerFigures {
  readonly messages: number;
  /** Messages that speak to her by name (vocative). */
  readonly spokenTo: number;
  /** Messages that name her while talking about her, of which `meantForHer` still speak to her. */
  readonly namingHer: number;
  readonly meantForHer: number;
  /** Planning calls made, per 100 messages. */
  readonly planningCallsPer100: number;
  /** Cheap addressing calls made, per 100 messages. */
  readonly addressingCallsPer100: number;
}

const PERSONA =
  "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n\n# Group Mode\nstrict\n\n# Start Typing Delay\n0\n\n# Answers Per Hour\n1000\n\n# Person Share\n100\n";

/** [from, text, meant for her]: the 30 lines that name her; the rest of the 100 is chatter. */
const SPOKEN_TO = [
  "Mira, what do you think about the new place on Main St?",
  "Mira, are you coming on friday?",
  "hey Mira! did you see the match?",
  "Mira: can you send me the recipe?",
  "you coming too, Mira?",
  "Mira, which film should we pick?",
  "Mira, how was your weekend?",
  "mira you there?",
  "Mira, settle this: pizza or sushi?",
  "what time works for you, Mira?",
];
const ABOUT_HER: readonly [string, boolean][] = [
  ["Mira said the film was great", false],
  ["I think Mira already booked the table", false],
  ["let's ask Mira later, she knows the owner", false],
  ["Mira is the best at hiding cake", false],
  ["did Mira come to the party yesterday?", false],
  ["Mira and Bob were there too", false],
  ["no idea, maybe Mira knows", false],
  ["Mira told me about that bakery", false],
  ["last time Mira picked the film it was great", false],
  ["I'll bring the board game Mira likes", false],
  ["Mira was right about the weather", false],
  ["we should invite Mira to the hike", false],
  ["Mira has the keys I think", false],
  ["haha that is so Mira", false],
  ["Mira sent me the photos already", false],
  ["I saw Mira at the market", false],
  ["thanks Mira", true],
  ["what do you think Mira?", true],
  ["good night Mira", true],
  ["love that idea Mira", true],
];
const CHATTER = [
  "anyone up for coffee?",
  "lol",
  "the bus was late again",
  "did you see the news",
  "I'm cooking pasta tonight",
  "ok",
  "nice",
  "it's raining again",
  "who has the charger",
  "see you all tomorrow",
];

/** Says "addressed" when a new message carries the script's marker; counts its calls. */
class CountingLlm implements Llm {
  calls = 0;
  modelFor(): string {
    return "counting-stand-in";
  }
  onUsage(): () => void {
    return () => {};
  }
  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    // (Rolling summaries ask this model too: they are not what is counted here.)
    if (req.purpose !== "address")
      return { ok: false, kind: "empty", reason: "not counted", calls: 1 } as JsonOutcome<T>;
    this.calls++;
    const text = req.contents.flatMap((c) => c.parts.map((p) => ("text" in p ? p.text : ""))).join("\n");
    const fresh = text.split(NEW_LABEL)[1] ?? "";
    const hit = fresh.split("\n").find((l) => MEANT.some((m) => l.endsWith(m)));
    const id = hit ? Number(/^⟦#(\d+)/.exec(hit)?.[1]) : undefined;
    const value = {
      reason: "scripted",
      addressed: hit !== undefined,
      confidence: 0.9,
      ...(id ? { message_id: id } : {}),
      wanna_interject: false,
      interject: 0,
      is_lightweight: false,
    };
    return { ok: true, value: value as T, model: "counting-stand-in", calls: 1 };
  }
}
const MEANT = ABOUT_HER.filter(([, meant]) => meant).map(([t]) => t);

/** The 100 lines, in a fixed interleaving: every 10 lines one spoken to her, two naming her, seven chatter. */
function script(): string[] {
  const out: string[] = [];
  for (let k = 0; k < 10; k++) {
    out.push(SPOKEN_TO[k]!, ABOUT_HER[2 * k]![0]);
    for (let c = 0; c < 7; c++) out.push(CHATTER[(k + c) % CHATTER.length]!);
    out.push(ABOUT_HER[2 * k + 1]![0]);
  }
  return out;
}

export async function benchAboutHer(): Promise<AboutHerFigures> {
  const clock = new FakeClock();
  const world = benchWorld("bench-about-her", clock);
  const { emu } = world;
  const account = emu.addAccount({ firstName: "Mira", username: "mira_ai" });
  const users: EmuUser[] = ["alice", "bob", "carol", "dave"].map((n) =>
    emu.addUser({ firstName: n, username: n }),
  );
  const group = emu.createSupergroup({ title: "Bench", members: [account, ...users] });
  let plans = 0;
  const planner: Planner = {
    async plan(): Promise<Plan> {
      plans++;
      return { tasks: [{ kind: "send", text: "sure", deps: [] } as PlanTask], rejected: [] };
    },
  };
  const llm = new CountingLlm();
  const rig = startRig(world, account, {
    persona: parsePersona(PERSONA, { file: "bench", promptDirs: [] }),
    selfUsername: "mira_ai",
    planner,
    llm,
    catchUpOnStart: false,
    scheduler: { tickMs: 100 },
  });
  try {
    const lines = script();
    for (const [n, text] of lines.entries()) {
      await clock.advance(30_000);
      await emu.post({ chat: group, from: users[n % users.length]!, text });
    }
    await clock.advance(60_000);
    return {
      messages: lines.length,
      spokenTo: SPOKEN_TO.length,
      namingHer: ABOUT_HER.length,
      meantForHer: MEANT.length,
      planningCallsPer100: (100 * plans) / lines.length,
      addressingCallsPer100: (100 * llm.calls) / lines.length,
    };
  } finally {
    await tearDownRig(rig, 1000);
  }
}
