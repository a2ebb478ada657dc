import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseFlags, UsageError } from "../../src/cli/args";
import { tempDir } from "../support/temp-dir";

/** Runs a script as `npm run <script>` does (tsx), without a terminal. */
function run(script: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, ["--import", "tsx", `scripts/${script}.ts`, ...args], {
    encoding: "utf8",
    env: { ...process.env, LOG_LEVEL: "silent", ...env },
    input: "",
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("script flags (node:util parseArgs)", () => {
  it("rejects an unknown flag, a flag missing its value and a stray argument, naming each and what is expected", () => {
    const opts = { db: { type: "string" }, verbose: { type: "boolean" } } as const;
    expect(() => parseFlags(["--bogus"], opts)).toThrow(UsageError);
    expect(() => parseFlags(["--bogus"], opts)).toThrow(
      'unknown flag "--bogus"; the flags are: --db <value>, --verbose, --help',
    );
    // A typo names the flag it most likely meant.
    expect(() => parseFlags(["--verbos"], opts)).toThrow('unknown flag "--verbos" (did you mean --verbose?)');
    expect(() => parseFlags(["--vrebose=1"], opts)).toThrow(
      'unknown flag "--vrebose" (did you mean --verbose?)',
    );
    expect(() => parseFlags(["--db"], opts)).toThrow("flag --db needs a value: --db <value>");
    expect(() => parseFlags(["--db", "--verbose"], opts)).toThrow(
      'flag --db needs a value: --db <value> (got the flag "--verbose" instead',
    );
    expect(() => parseFlags(["--verbose=yes"], opts)).toThrow(
      'flag --verbose takes no value (got "--verbose=yes"): write just --verbose',
    );
    expect(() => parseFlags(["Mira"], {})).toThrow(
      'unexpected argument "Mira": this command takes only flags',
    );
    // Never Node's own parser text.
    expect(() => parseFlags(["--bogus"], opts)).not.toThrow(/Unknown option|positional argument/);
    expect(parseFlags(["--db", "x.db"], { db: { type: "string" } })).toEqual({ db: "x.db" });
    expect(parseFlags(["-h"], {})).toBe("help");
  });

  for (const script of ["start", "sandbox", "bench"]) {
    it(`${script}: an unknown flag is an error that names it (exit 2); --help prints the usage (exit 0)`, () => {
      const bad = run(script, ["--bogus"]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(`${script}: unknown flag "--bogus"; the flags are: `);
      const help = run(script, ["--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: npm (run )?${script}`));
      // The sandbox's help lists every input form, the owner's too.
      if (script === "sandbox")
        for (const form of [
          "bob > 12: indeed",
          "dm carol: psst",
          "[photo",
          "reacts 👍 to #12",
          "typing",
          "owner: /status",
          "owner in group",
          "--echo",
          "/kill",
        ])
          expect(help.stdout).toContain(form);
    }, 120_000); // two processes, each compiling its TypeScript on a shared machine (the first builds dist/)
  }

  it("sandbox: a flag missing its value is an error that names it", () => {
    const r = run("sandbox", ["--agent"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--agent");
  });

  it("sandbox runs with a malformed TELEGRAM_API_HASH (it does not use Telegram's credentials)", () => {
    const r = run("sandbox", ["--db", `${tempDir()}/s.db`], {
      TELEGRAM_API_HASH: "malformed",
      TELEGRAM_API_ID: "x",
      GEMINI_API_KEY: "",
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("input ended and nothing is pending");
  });

  describe("the first run and the scripts' flags alike (issue 43)", () => {
    it("a typo gets a did-you-mean in every script, the build script included; no parser text", () => {
      const start = run("start", ["--agnet", "Mira"]);
      expect(start.code).toBe(2);
      expect(start.stderr).toContain('start: unknown flag "--agnet" (did you mean --agent?)');
      const build = spawnSync(process.execPath, ["scripts/build.mjs", "--outdir"], { encoding: "utf8" });
      expect(build.status).toBe(2);
      expect(build.stderr).toContain("build: flag --outdir needs a value: --outdir <value>");
      expect(build.stderr).not.toMatch(/Option '--outdir <value>' argument missing/);
      const typo = spawnSync(process.execPath, ["scripts/build.mjs", "--if-stal"], { encoding: "utf8" });
      expect(typo.stderr).toContain('unknown flag "--if-stal" (did you mean --if-stale?)');
    }, 60_000);

    it("npm start with no session and no model: the echo planner answers, the banner says how to go live; --dry shows the request", () => {
      const env = { SESSIONS_DIR: tempDir(), GEMINI_API_KEY: "", STATE_DB: `${tempDir()}/s.db` };
      const input = "alice: hi all\nbob: Mira, are you there?\n";
      const r = spawnSync(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
        encoding: "utf8",
        env: { ...process.env, LOG_LEVEL: "silent", ...env },
        input,
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const banner = r.stdout.split("\n").slice(0, 3).join("\n");
      expect(banner).toContain("Starting the offline sandbox instead.");
      expect(banner).toContain("GEMINI_API_KEY");
      expect(banner).toContain("OPENAI_BASE_URL");
      expect(banner).toContain("npm run login -- Mira");
      expect(banner).toContain("3. npm start");
      expect(r.stdout).toMatch(
        /#4 Mira: \(echo, not from a model\) Bob said: “Mira, are you there\?” \(↩ #3\)/,
      );
      expect(r.stdout).not.toContain("--- dry run");

      const dry = spawnSync(
        process.execPath,
        ["--import", "tsx", "scripts/start.ts", "--dry", "--db", `${tempDir()}/d.db`],
        {
          encoding: "utf8",
          env: { ...process.env, LOG_LEVEL: "silent", ...env },
          input,
          timeout: 60_000,
        },
      );
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("--- dry run");
      expect(dry.stdout).toContain("Mira, are you there?");
      expect(dry.stdout).not.toContain("(echo, not from a model)");
    }, 120_000);
  });
});
