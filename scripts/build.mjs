#!/usr/bin/env node
/**
 * `npm run build`: compile the entry points (start, login, sandbox, backup) to plain JavaScript
 * in dist/ — one ES module each, bundled by esbuild, packages left in node_modules — so they run
 * on `node` without a TypeScript loader. `--if-stale` (what `npm start` runs first) builds only
 * when dist/ is missing or was built from other sources; it needs no compiler when dist/ is up to
 * date, so a production install (`npm prune --omit=dev`) starts without one.
 *
 * Plain JavaScript on purpose: it must run before anything is compiled.
 */
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
// eslint-disable-next-line no-restricted-syntax -- plain ES modules run by node name their files
import { parseCommandLine } from "../src/cli/command-line.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The scripts that run compiled: scripts/<name>.ts → dist/<name>.js. */
export const ENTRIES = ["start", "login", "sandbox", "backup"];
const INFO = "build-info.json";

const USAGE = `Usage: npm run build [-- --if-stale] [--outdir <dir>]

Compiles scripts/{${ENTRIES.join(",")}}.ts and everything they import to dist/<name>.js
(ES modules for node 20; dependencies stay in node_modules). dist/${INFO} records a hash of
every source file that went in.

Options:
  --if-stale        build only when dist/ is missing or its sources changed (npm start runs this)
  --outdir <dir>    write there instead of dist/
  -h, --help        this text`;

function fail(message, status = 1) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(status);
}

let flags;
try {
  flags = parseCommandLine(process.argv.slice(2), {
    "if-stale": { type: "boolean" },
    outdir: { type: "string" },
  });
} catch (e) {
  fail(`${e instanceof Error ? e.message : String(e)}\nRun with --help for usage.`, 2);
}
if (flags === "help") {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
flags = flags.values;

const outdir = resolve(ROOT, flags.outdir ?? "dist");
const hashOf = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
const self = fileURLToPath(import.meta.url);

/** Why dist/ must be rebuilt, or undefined when it is up to date. */
function staleness() {
  const infoFile = join(outdir, INFO);
  if (!existsSync(infoFile)) return `${relative(ROOT, outdir) || "."}/ has not been built`;
  let info;
  try {
    info = JSON.parse(readFileSync(infoFile, "utf8"));
  } catch {
    return `${relative(ROOT, infoFile)} is unreadable`;
  }
  if (info.builder !== hashOf(self)) return "the build script changed";
  for (const e of ENTRIES) if (!existsSync(join(outdir, `${e}.js`))) return `${e}.js is missing`;
  for (const [file, hash] of Object.entries(info.inputs ?? {})) {
    const path = join(ROOT, file);
    if (!existsSync(path)) return `${file} is gone`;
    if (hashOf(path) !== hash) return `${file} changed`;
  }
  return undefined;
}

if (flags["if-stale"]) {
  const why = staleness();
  if (why === undefined) process.exit(0);
  process.stderr.write(`build: ${why}; compiling\n`);
}

let esbuild;
try {
  esbuild = await import("esbuild");
} catch {
  fail(
    "the compiler (esbuild, a development dependency) is not installed, and dist/ is missing or older than the sources.\n" +
      "Install everything and build: npm ci && npm run build (then npm prune --omit=dev for production).",
  );
}

rmSync(outdir, { recursive: true, force: true });
let result;
try {
  result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ENTRIES.map((e) => `scripts/${e}.ts`),
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Dependencies are loaded from node_modules as installed (GramJS, better-sqlite3's binary…).
    packages: "external",
    sourcemap: "linked",
    metafile: true,
    logLevel: "warning",
  });
} catch (e) {
  fail(`compiling failed: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`);
}
// The operator console's page files are served as they are: copied beside the entry points.
const CONSOLE_PUBLIC = "src/console/public";
cpSync(join(ROOT, CONSOLE_PUBLIC), join(outdir, "console-public"), { recursive: true });
const pageFiles = readdirSync(join(ROOT, CONSOLE_PUBLIC)).map((f) => `${CONSOLE_PUBLIC}/${f}`);
const inputs = Object.fromEntries(
  [...Object.keys(result.metafile.inputs), ...pageFiles]
    .sort()
    .map((file) => [file, hashOf(join(ROOT, file))]),
);
writeFileSync(
  join(outdir, INFO),
  `${JSON.stringify({ builder: hashOf(self), entries: ENTRIES, inputs }, null, 2)}\n`,
);
process.stderr.write(
  `build: ${ENTRIES.map((e) => `${relative(ROOT, outdir)}/${e}.js`).join(", ")} (${Object.keys(inputs).length} source files)\n`,
);
