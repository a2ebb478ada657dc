/**
 * Persona files edited while `npm start` runs. The agents folder is watched; when a running
 * persona's file (or one of its role prompts) changes, it is read and checked again exactly as
 * at start. A valid version applies at once for what may change live (runtime/persona-update.ts)
 * and names what needs a restart — one info line; a broken one leaves the persona on its last
 * good version, with one error line naming the file and the field; a deleted one too (a restart
 * would not start it). A file no running persona came from (a new persona) is said to need a
 * restart. Events are gathered for half a second (editors write a file in several steps).
 */
import { existsSync, watch, type FSWatcher } from "node:fs";
import { basename, relative, resolve, sep } from "node:path";
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { errorMessage } from "../base/error-message";
import type { Clock } from "../base/types";
import { ConfigError } from "../config/config-error";
import { loadPersonaFile, type Persona } from "../config/persona";
import type { PersonaChange } from "../runtime/persona-update";

/** What the watch needs of a running persona. */
export interface WatchedPersona {
  readonly persona: Persona;
  updatePersona(next: Persona): PersonaChange;
}

const SETTLE_MS = 500;

export class PersonaWatch {
  private readonly running = new Map<string, WatchedPersona>();
  private watcher: FSWatcher | undefined;
  private timer: unknown;
  private readonly touched = new Set<string>();
  private readonly clock: Clock;
  /** The last content-error line said per file (not repeated for every save of the same mistake). */
  private readonly lastError = new Map<string, string>();

  constructor(
    private readonly o: {
      readonly dir: string;
      readonly logger: Logger;
      /** Real time: the debounce follows the filesystem's events. */
      readonly clock?: Clock;
    },
  ) {
    this.clock = o.clock ?? systemClock;
  }

  /** A persona runs from its file (its `file`, as loaded). */
  add(p: WatchedPersona): void {
    this.running.set(resolve(p.persona.file), p);
    if (this.watcher) return;
    try {
      this.watcher = watch(this.o.dir, { recursive: true }, (_event, name) => {
        if (name) this.touched.add(resolve(this.o.dir, name.toString()));
        if (this.timer === undefined) this.timer = this.clock.setTimeout(() => this.settle(), SETTLE_MS);
      });
      this.watcher.on("error", () => undefined);
    } catch (e) {
      this.o.logger.warn(
        { component: "persona", dir: this.o.dir, err: errorMessage(e) },
        `cannot watch ${this.o.dir}; edits to persona files apply at the next start`,
      );
    }
  }

  stop(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** The files that changed, each read once. */
  private settle(): void {
    this.timer = undefined;
    const files = [...this.touched];
    this.touched.clear();
    const redo = new Set<string>();
    for (const f of files) {
      const rel = relative(this.o.dir, f);
      if (!rel.endsWith(".md") || rel.startsWith("..")) continue;
      const top = rel.split(sep);
      if (top.length === 1) redo.add(f);
      else {
        // agents/<Name>/prompts/*.md or agents/prompts/*.md: the role prompts of one or all personas.
        for (const [file, p] of this.running)
          if (top[0] === "prompts" || top[0] === basename(p.persona.file, ".md")) redo.add(file);
      }
    }
    for (const f of redo) this.reload(f);
  }

  private reload(file: string): void {
    const p = this.running.get(file);
    const shown = relative(process.cwd(), file) || file;
    if (!p) {
      if (existsSync(file))
        this.o.logger.info(
          { component: "persona", file },
          `${shown}: no persona running from this file; a new persona starts at the next start`,
        );
      return;
    }
    const name = p.persona.name;
    if (!existsSync(file)) {
      this.o.logger.warn(
        { component: "persona", agent: name, file },
        `${shown} was deleted; ${name} keeps running as it was (a restart would not start ${name})`,
      );
      return;
    }
    let next: Persona;
    try {
      next = loadPersonaFile(this.o.dir, basename(file));
    } catch (e) {
      const line = `${e instanceof ConfigError ? e.message : `${shown}: ${errorMessage(e)}`}; ${name} keeps running on the last good version`;
      if (this.lastError.get(file) === line) return;
      this.lastError.set(file, line);
      this.o.logger.error(
        {
          component: "persona",
          agent: name,
          file,
          ...(e instanceof ConfigError && e.field ? { field: e.field } : {}),
        },
        line,
      );
      return;
    }
    this.lastError.delete(file);
    const c = p.updatePersona(next);
    if (c.applied.length === 0 && c.atRestart.length === 0) return;
    const parts = [
      ...(c.applied.length ? [`applied now: ${c.applied.join(", ")}`] : []),
      ...(c.atRestart.length ? [`at the next start (a restart applies it): ${c.atRestart.join(", ")}`] : []),
    ];
    this.o.logger.info(
      { component: "persona", agent: name, file, applied: c.applied, atRestart: c.atRestart },
      `${shown} changed; ${parts.join("; ")}`,
    );
  }
}
