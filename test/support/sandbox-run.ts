import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { expect } from "vitest";
import { readEnv } from "../../src/config/env";
import { runSandbox } from "../../src/sandbox/repl";
import { captureLogger } from "./log-capture";
import { tempDir } from "./temp-dir";

/** Run the sandbox over these input lines (shipped personas, a fresh database); its output lines. */
export async function sandbox(
  lines: string[],
  env: Record<string, string> = {},
  o: { readonly echo?: boolean; readonly json?: boolean } = {},
): Promise<string[]> {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on("data", (c) => chunks.push(String(c)));
  const code = await runSandbox({
    input: Readable.from(lines.map((l) => `${l}\n`)),
    output: out,
    ...o,
    dbPath: join(tempDir(), "sandbox.db"),
    logger: captureLogger().logger,
    env: readEnv({ AGENTS_DIR: "agents", ...env }),
  });
  expect(code).toBe(0);
  return chunks.join("").split("\n");
}
