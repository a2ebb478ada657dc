/**
 * `npm start` on an OpenAI-compatible server with no Gemini key: a persona with a session answers
 * through OPENAI_BASE_URL; a server that is not there, or lacks the model, stops start with one
 * line naming the setting before anything connects.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { start } from "../../src/app/start";
import { readEnv } from "../../src/config/env";
import type { AgentRuntime } from "../../src/runtime/agent-runtime";
import { TelegramEmulator } from "../../emulator";
import { OpenAiFake } from "../support/openai-fake";
import { emulatedClientFactory, TEST_API_HASH, TEST_SESSION } from "../support/live-env";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

const PERSONA =
  "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n\n# Quiet Window\n0\n";

function setup(baseUrl: string, model: string) {
  const agents = tempDir();
  writeFileSync(join(agents, "Mira.md"), PERSONA);
  const sessions = tempDir();
  writeFileSync(join(sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
  const env = readEnv({
    AGENTS_DIR: agents,
    SESSIONS_DIR: sessions,
    STATE_DB: join(tempDir(), "agents.db"),
    TELEGRAM_API_ID: "12345",
    TELEGRAM_API_HASH: TEST_API_HASH,
    OPENAI_BASE_URL: baseUrl,
    OPENAI_API_KEY: "local",
    OPENAI_MODEL: model,
  });
  const emu = new TelegramEmulator();
  const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  let connects = 0;
  const factory = emulatedClientFactory(emu, account);
  const clientFactory: typeof factory = (...a) => {
    connects++;
    return factory(...a);
  };
  return { env, emu, account, carol, clientFactory, connects: () => connects };
}

describe("npm start on an OpenAI-compatible server", () => {
  it("answers a DM through OPENAI_BASE_URL, with no Gemini key", async () => {
    const fake = await OpenAiFake.start({ models: ["llama3.2"] });
    fake.respondWith = () => ({ json: { tasks: [{ kind: "send", text: "hi carol, from a local model" }] } });
    const w = setup(fake.baseUrl, "llama3.2");
    let stop!: () => void;
    let running!: (r: AgentRuntime) => void;
    const runtime = new Promise<AgentRuntime>((r) => (running = r));
    const done = start({
      env: w.env,
      clientFactory: w.clientFactory,
      until: new Promise<void>((r) => (stop = r)),
      logger: captureLogger().logger,
      onRunning: (r) => running(r),
    });
    try {
      await (
        await runtime
      ).caughtUp;
      const dm = w.emu.dm(w.account, w.carol);
      await w.emu.post({ chat: dm, from: w.carol, text: "hey mira" });
      await until(() => w.emu.history(dm).some((m) => m.fromId === w.account.id), 15_000);
      expect(w.emu.history(dm).map((m) => m.text)).toContain("hi carol, from a local model");
      expect(fake.requests.at(-1)!.model).toBe("llama3.2");
    } finally {
      stop();
      expect(await done).toBe(0);
      await fake.close();
    }
  }, 30_000);

  it("a model the server lacks, or a server that is not there: one line naming the setting, nothing connects", async () => {
    const fake = await OpenAiFake.start({ models: ["llama3.2"] });
    const w = setup(fake.baseUrl, "qwen3:8b");
    await expect(
      start({ env: w.env, clientFactory: w.clientFactory, logger: captureLogger().logger }),
    ).rejects.toThrow(
      `OPENAI_MODEL: the server at ${fake.baseUrl} has no model "qwen3:8b" (it has: llama3.2); pull or load it, or name one it has`,
    );
    expect(w.connects()).toBe(0);
    await fake.close();
    const gone = await OpenAiFake.start();
    await gone.close();
    const w2 = setup(gone.baseUrl, "llama3.2");
    await expect(
      start({ env: w2.env, clientFactory: w2.clientFactory, logger: captureLogger().logger }),
    ).rejects.toThrow(
      /^OPENAI_BASE_URL: nothing answers at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\); start the model server/,
    );
    expect(w2.connects()).toBe(0);
  }, 30_000);
});
