/**
 * What the sandbox plans with: the configured model (Gemini with GEMINI_API_KEY, or an
 * OpenAI-compatible server with OPENAI_BASE_URL: llm/providers.ts); without it a dry run, which
 * prints the request that would be sent (readable by default, the exact JSON body with --json)
 * and answers nothing — or, with --echo, the offline echo planner (echo-planner.ts), whose canned
 * plans are labelled as not from a model. `--verbose` wraps the planner to show the envelopes
 * going in and the plan coming back.
 */
import { EchoSpeech } from "./echo-speech";
import type { SpeechClient } from "../llm/speech";
import { speechFrom } from "../llm/speech-setup";
import type { Logger } from "pino";
import type { Env } from "../config/env";
import type { LlmRoutes } from "../config/llm-routes";
import { DryLlm, type Llm } from "../llm/llm";
import { createLlm, hasLlm } from "../llm/providers";
import { DryPlanner, GeminiPlanner, type Planner } from "../planning/planner";
import { EchoLlm, EchoPlanner, type EchoMessage } from "./echo-planner";
import { EchoLookup } from "./echo-lookup";
import { GroundedLookup, type LookupClient } from "../llm/grounded";

export interface SandboxModelOptions {
  /** Print the dry run's request as its exact JSON body (default: readable text). */
  readonly json?: boolean;
  /** Without a key: plan with the offline echo planner instead of the dry run. */
  readonly echo?: boolean;
  /** The echo planner's view of the stored messages. */
  readonly message?: (chatId: string, id: number) => EchoMessage | undefined;
  /** The persona's `# Models` (which provider answers what). */
  readonly models?: LlmRoutes;
}

/** How the sandbox runs its planning: with Gemini, dry, or with the offline echo planner. */
export type SandboxPlanning = "gemini" | "dry" | "echo";

/** The persona's LLM and planner for this run. */
export function sandboxModels(
  env: Env,
  logger: Logger,
  print: (s: string) => void,
  o: SandboxModelOptions = {},
): {
  readonly llm: Llm;
  readonly planner: Planner;
  readonly mode: SandboxPlanning;
  /** Look-ups: Gemini's grounded calls with a key, the echo's canned ones with --echo; none in a dry run. */
  readonly lookups?: LookupClient;
  /** Her voice (`# Voice`): the configured speech model, the echo's hum with --echo; none in a dry run. */
  readonly speech?: SpeechClient;
} {
  if (hasLlm(env)) {
    // Gemini, an OpenAI-compatible server, or both, per purpose (llm/providers.ts).
    const { llm, plan } = createLlm({ env, ...(o.models ? { persona: o.models } : {}), logger });
    for (const notice of plan.notices) print(`sandbox: ${notice}`);
    // Look-ups are Gemini's own tools: only with a Gemini key.
    const lookups = env.GEMINI_API_KEY
      ? new GroundedLookup({
          apiKey: env.GEMINI_API_KEY,
          model: env.GEMINI_MODEL,
          baseUrl: env.GOOGLE_GEMINI_BASE_URL,
          logger,
        })
      : undefined;
    const speech = speechFrom(env)?.(logger);
    return {
      llm,
      planner: new GeminiPlanner({ llm, logger }),
      mode: "gemini",
      ...(lookups ? { lookups } : {}),
      ...(speech ? { speech } : {}),
    };
  }
  if (o.echo)
    return {
      llm: new EchoLlm(),
      planner: new EchoPlanner({ message: o.message ?? (() => undefined), print }),
      mode: "echo",
      lookups: new EchoLookup(print),
      speech: new EchoSpeech(),
    };
  const show = (what: string, body: Record<string, unknown>) =>
    print(
      o.json
        ? `--- dry run (no GEMINI_API_KEY): ${what} request body that would be sent ---\n${JSON.stringify(body, null, 2)}\n---`
        : `--- dry run (no GEMINI_API_KEY): the ${what} request that would be sent (--json prints its exact body) ---\n${readableRequest(body)}\n---`,
    );
  return {
    llm: new DryLlm((purpose, body) => show(purpose, body), env.GEMINI_MODEL),
    planner: new DryPlanner((body) => show("plan", body)),
    mode: "dry",
  };
}

/**
 * A request body as a person reads it: the system instruction and each part of the turns as
 * plain text, and the answer's shape in one line (the task kinds a plan may hold) instead of the
 * JSON schema's few hundred lines.
 */
function readableRequest(body: Record<string, unknown>): string {
  const out: string[] = [];
  const system = (body.systemInstruction as { parts?: { text?: string }[] } | undefined)?.parts ?? [];
  out.push("[system instruction]", ...system.map((p) => p.text ?? ""));
  const contents =
    (body.contents as { role?: string; parts?: Record<string, unknown>[] }[] | undefined) ?? [];
  for (const c of contents) {
    out.push(`[${c.role ?? "user"} turn]`);
    for (const p of c.parts ?? []) {
      if (typeof p.text === "string") out.push(p.text);
      else if (p.inlineData && typeof p.inlineData === "object") {
        const d = p.inlineData as { mimeType?: string; data?: string };
        out.push(`[inline ${d.mimeType ?? "data"}, ${Math.floor(((d.data ?? "").length * 3) / 4)} bytes]`);
      }
    }
  }
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  const schema = config.responseJsonSchema;
  const kinds = [...new Set(constsOf(schema, "kind"))];
  const schemaLines = JSON.stringify(schema ?? {}, null, 2).split("\n").length;
  out.push(
    `[answer] JSON${kinds.length ? ` {"tasks": [...]} of the kinds: ${kinds.join(", ")}` : ""} (a ${schemaLines}-line JSON schema; --json prints it)` +
      ` · temperature ${String(config.temperature)}, at most ${String(config.maxOutputTokens)} output tokens`,
  );
  return out.join("\n");
}

/** Every `const` (or one-value `enum`) a JSON schema gives a property of this name. */
function constsOf(schema: unknown, name: string): string[] {
  const found: string[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) {
      x.forEach(walk);
      return;
    }
    if (x === null || typeof x !== "object") return;
    const o = x as Record<string, unknown>;
    const props = o.properties as Record<string, Record<string, unknown>> | undefined;
    const p = props?.[name];
    if (p) {
      if (typeof p.const === "string") found.push(p.const);
      else if (Array.isArray(p.enum) && p.enum.length === 1 && typeof p.enum[0] === "string")
        found.push(p.enum[0]);
    }
    Object.values(o).forEach(walk);
  };
  walk(schema);
  return found;
}

/** --verbose: show the envelopes going to the planner and the plan coming back. */
export function verbosePlanner(
  inner: Planner,
  print: (s: string) => void,
  chatName: (chatId: string) => string,
  mode: SandboxPlanning,
): Planner {
  return {
    async plan(prompt, check, meta) {
      const last = prompt.contents[prompt.contents.length - 1];
      const turns = prompt.contents.length === 1 ? "1 turn" : `${prompt.contents.length} turns`;
      print(
        `[planner] ${chatName(meta.chatId)}, ${turns}; last turn:\n${(last?.parts ?? []).map((p) => `  ${"text" in p ? p.text.replace(/\n/g, "\n  ") : `[${p.inlineData.mimeType}, ${p.inlineData.data.length} base64 characters]`}`).join("\n")}`,
      );
      const plan = await inner.plan(prompt, check, meta);
      if (mode === "dry") print("[planner] dry run: no plan");
      else
        print(
          `[planner] plan${mode === "echo" ? " (echo, not from a model)" : ""}: ${JSON.stringify(plan.tasks)}${plan.rejected.length ? ` rejected: ${JSON.stringify(plan.rejected)}` : ""}`,
        );
      return plan;
    },
  };
}
