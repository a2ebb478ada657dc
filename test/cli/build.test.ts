import { spawnSync } from "node:child_process";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir";

const ROOT = resolve(__dirname, "../..");

/** `node scripts/build.mjs <args>` (what `npm run build` and every `pre…` script run). */
function build(args: string[]) {
  const r = spawnSync(process.execPath, [join(ROOT, "scripts/build.mjs"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The compiled build: plain JavaScript that runs on `node` with no TypeScript loader. Built into a
 * temporary directory beside a link to this checkout's node_modules (as dist/ sits beside it).
 */
describe("compiled build (npm run build)", () => {
  it("compiles start, login, sandbox and backup; npm start's program runs on plain node and reaches the sandbox without a session", () => {
    const dir = tempDir();
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
    const out = join(dir, "dist");
    const made = build(["--outdir", out]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toMatch(/start\.js.*login\.js.*sandbox\.js.*backup\.js/);

    const r = spawnSync(process.execPath, [join(out, "start.js")], {
      cwd: ROOT,
      encoding: "utf8",
      input: "alice: hello\nbob: Mira, are you there?\n",
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        STATE_DB: join(dir, "state.db"),
        SESSIONS_DIR: join(dir, "sessions"),
        AGENTS_DIR: join(ROOT, "agents"),
        LOG_LEVEL: "warn",
      },
      timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("Starting the offline sandbox");
    expect(r.stdout).toMatch(/#3 bob: Mira, are you there\?/);
    expect(r.stdout).toContain("input ended and nothing is pending; bye.");

    // The other entry points are there and answer --help.
    for (const script of ["login", "sandbox", "backup"]) {
      const help = spawnSync(process.execPath, [join(out, `${script}.js`), "--help"], {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 30_000,
      });
      expect(help.status, `${script}: ${help.stderr}`).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: npm run ${script}`));
    }
  }, 120_000);

  it("--if-stale builds only when a source changed since the last build", () => {
    const dir = tempDir();
    const out = join(dir, "dist");
    expect(build(["--outdir", out]).code).toBe(0);
    const fresh = build(["--if-stale", "--outdir", out]);
    expect(fresh.code).toBe(0);
    expect(fresh.stderr).toBe(""); // up to date: nothing compiled, nothing said

    // A source file that differs from the one compiled (here: its recorded hash does).
    const infoFile = join(out, "build-info.json");
    const info = JSON.parse(readFileSync(infoFile, "utf8")) as { inputs: Record<string, string> };
    info.inputs["src/store/db.ts"] = "0".repeat(64);
    writeFileSync(infoFile, JSON.stringify(info));
    const stale = build(["--if-stale", "--outdir", out]);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).toContain("src/store/db.ts changed; compiling");
    expect(build(["--if-stale", "--outdir", out]).stderr).toBe("");
  }, 120_000);

  it("an unknown flag is an error that names it (exit 2); --help prints the usage", () => {
    const bad = build(["--bogus"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      'build: unknown flag "--bogus"; the flags are: --if-stale, --outdir <value>, --help',
    );
    const help = build(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: npm run build/);
  });
});
