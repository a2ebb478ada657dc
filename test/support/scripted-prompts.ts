/**
 * Answers a login's questions from a script, in order, checking each question and its kind —
 * so a test fails when the login asks something unexpected (or asks the password visibly).
 */
import type { LoginPrompts } from "../../src/telegram/login/prompts";

export type PromptKind = "text" | "secret" | "confirm";

export interface ScriptedAnswer {
  readonly kind: PromptKind;
  /** The question must match this. */
  readonly ask: RegExp;
  /** The answer; a function is called when the question is asked (e.g. to read the code just sent). */
  readonly answer: string | boolean | (() => string | boolean | Promise<string | boolean>);
}

export function scriptedPrompts(
  script: readonly ScriptedAnswer[],
): LoginPrompts & { readonly asked: string[]; remaining(): number } {
  const queue = [...script];
  const asked: string[] = [];
  const next = async (kind: PromptKind, question: string, dflt?: string): Promise<string | boolean> => {
    asked.push(question);
    const step = queue.shift();
    if (!step) throw new Error(`unexpected question (script is empty): ${kind} "${question}"`);
    if (step.kind !== kind || !step.ask.test(question)) {
      throw new Error(`expected ${step.kind} ${String(step.ask)}, got ${kind} "${question}"`);
    }
    const a = typeof step.answer === "function" ? await step.answer() : step.answer;
    return a === "" && dflt !== undefined ? dflt : a;
  };
  return {
    asked,
    remaining: () => queue.length,
    text: async (q, o) => String(await next("text", q, o?.default)),
    secret: async (q) => String(await next("secret", q)),
    confirm: async (q) => Boolean(await next("confirm", q)),
  };
}
