/**
 * One scene through the real pipeline: a fresh emulator (the persona's account, alice, bob and
 * carol, the supergroup "Friends"), the real runtime on a temporary SQLite file and a fake clock,
 * the configured LLM. The lines are posted as the members, time passes until nothing is left to
 * do, and what the persona did is read off the emulator as the chat would see it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { createEmulatedClient, TelegramEmulator, type EmuChat, type EmuUser } from "../../emulator";
import { FakeClock } from "../base/clock";
import type { Persona } from "../config/persona";
import type { Llm } from "../llm/llm";
import type { LlmUsage } from "../llm/types";
import { GeminiPlanner } from "../planning/planner";
import { AgentRuntime } from "../runtime/agent-runtime";
import { closeDatabase, openDatabase } from "../store/db";
import { PeerCacheSession } from "../telegram/connection/session";
import type { Member, Scene } from "./scenes";

/** What the persona did in a scene. */
export interface SceneRun {
  readonly scene: Scene;
  /** Her messages in the scene's chat, after its lines. */
  readonly said: readonly string[];
  /** Her messages in the group during a scene in a DM, or anywhere but the setup's DM: where a secret could leak. */
  readonly saidInGroup: readonly string[];
  /** Her reactions to the scene's lines. */
  readonly reactions: readonly string[];
  readonly usage: readonly LlmUsage[];
  readonly ms: number;
}

const FAKE_STEP_MS = 5_000;
/** The most fake time a scene may take (read delays, typing, a quiet window). */
const FAKE_MAX_MS = 15 * 60_000;

export async function runScene(
  scene: Scene,
  o: { readonly persona: Persona; readonly llm: Llm; readonly logger: Logger },
): Promise<SceneRun> {
  const started = performance.now();
  const clock = new FakeClock();
  const zero = clock.now() - clock.monotonic();
  const emu = new TelegramEmulator({ now: () => zero + clock.monotonic() });
  const account = emu.addAccount({ firstName: o.persona.name, username: "persona_eval" });
  const members: Record<Member, EmuUser> = {
    alice: emu.addUser({ firstName: "Alice", username: "alice" }),
    bob: emu.addUser({ firstName: "Bob", username: "bob" }),
    carol: emu.addUser({ firstName: "Carol", username: "carol" }),
  };
  const group = emu.createSupergroup({ title: "Friends", members: [account, ...Object.values(members)] });
  for (const u of Object.values(members)) emu.addContact(account, u);
  const dir = mkdtempSync(join(tmpdir(), "eval-"));
  const db = openDatabase(join(dir, "eval.db"));
  const client = createEmulatedClient(emu, account, { session: new PeerCacheSession("") });
  const usage: LlmUsage[] = [];
  const off = o.llm.onUsage((u) => usage.push(u));
  const runtime = new AgentRuntime({
    persona: o.persona,
    db,
    client,
    selfId: String(account.id),
    selfUsername: "persona_eval",
    planner: new GeminiPlanner({ llm: o.llm, logger: o.logger }),
    llm: o.llm,
    logger: o.logger,
    clock,
    scheduler: { tickMs: 1000, retryDelayMs: 10_000 },
  });
  clock.settle = () => runtime.scheduler.whenIdle();
  const fill = (t: string) => t.replaceAll("{name}", o.persona.name).replaceAll("{username}", "persona_eval");
  const settle = async () => {
    for (let t = 0; t < FAKE_MAX_MS; t += FAKE_STEP_MS) {
      await clock.advance(FAKE_STEP_MS);
      if (t >= 60_000 && runtime.scheduler.openTasks().length === 0) return;
    }
  };
  try {
    runtime.start();
    await runtime.caughtUp;
    for (const s of scene.setup ?? []) {
      await emu.post({ chat: emu.dm(account, members[s.from]), from: members[s.from], text: fill(s.text) });
      await settle();
    }
    const chat: EmuChat = scene.where === "group" ? group : emu.dm(account, members[scene.with ?? "carol"]);
    const mark = emu.history(chat).length;
    const groupMark = emu.history(group).length;
    const ids: number[] = [];
    for (const l of scene.lines) {
      ids.push((await emu.post({ chat, from: members[l.from], text: fill(l.text) })).id);
      await clock.advance(2_000);
    }
    await settle();
    const mine = (c: EmuChat, from: number) =>
      emu
        .history(c)
        .slice(from)
        .filter((m) => m.fromId === account.id)
        .map((m) => m.text);
    const reactions = ids.flatMap((id) =>
      emu.chats
        .reactions(chat, id)
        .filter((r) => r.userId === String(account.id))
        .map((r) => r.emoji),
    );
    return {
      scene,
      said: mine(chat, mark),
      saidInGroup: mine(group, scene.where === "group" ? mark : groupMark),
      reactions,
      usage,
      ms: performance.now() - started,
    };
  } finally {
    off();
    await runtime.stop();
    emu.detach(client);
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}
