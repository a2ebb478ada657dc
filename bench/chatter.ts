/**
 * "Ordinary chatter" for the smart-mode figure and its test: a deterministic script of group
 * messages among four people, as a lively group reads — statements, replies to each other,
 * questions to the room, @mentions of each other, a bot command, bursts of quick messages — plus
 * a few times the persona is asked by name and the asker goes on without naming it.
 */

type ChatterKind = "plain" | "reply" | "question" | "mention-other" | "command" | "explicit" | "follow-up";

export interface ChatterLine {
  readonly from: "alice" | "bob" | "carol" | "dave";
  readonly text: string;
  readonly kind: ChatterKind;
  /** Index (in the script) of the message this one replies to. */
  readonly replyTo?: number;
  /** Pause before this message, ms. */
  readonly gapMs: number;
}

const PEOPLE = ["alice", "bob", "carol", "dave"] as const;
const PLAIN = [
  "lol",
  "same here",
  "I'm heading out for a bit",
  "the build is green again",
  "that meeting could have been an email",
  "coffee machine is broken again",
  "just pushed the fix",
  "ok",
  "nice",
  "weather is awful today",
  "I'll be late tomorrow",
  "finally friday",
  "haha true",
  "brb",
  "new episode dropped yesterday",
];
const QUESTIONS = [
  "anyone up for lunch today?",
  "does anyone know when the release is?",
  "who has the keys to the storage room?",
  "is the wifi down for everyone?",
  "what are you all doing this weekend?",
];
const REPLIES = [
  "agreed",
  "no way",
  "sounds good to me",
  "I can do that",
  "not sure about that",
  "thanks!",
  "tomorrow works",
];

/** mulberry32: a small seeded PRNG, so every run sees the same chatter. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` messages (default 100). At `explicitAt` indexes someone asks the persona by name
 * (`personaName`), and the same person follows up twice without naming it (the follow-ups are
 * meant for the persona: a smart persona should answer them).
 */
export function ordinaryChatter(o: {
  personaName: string;
  n?: number;
  seed?: number;
  explicitAt?: readonly number[];
}): ChatterLine[] {
  const n = o.n ?? 100;
  const explicitAt = new Set(o.explicitAt ?? [25, 70]);
  const r = rng(o.seed ?? 7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: ChatterLine[] = [];
  let followUps: { from: ChatterLine["from"]; left: number } | undefined;
  while (out.length < n) {
    const i = out.length;
    const gapMs = r() < 0.3 ? 500 + Math.floor(r() * 1500) : 4_000 + Math.floor(r() * 26_000);
    if (explicitAt.has(i)) {
      const from = pick(PEOPLE);
      out.push({
        from,
        kind: "explicit",
        text: `${o.personaName}, what do you think about the new office plan?`,
        gapMs,
      });
      followUps = { from, left: 2 };
      continue;
    }
    if (followUps && followUps.left > 0) {
      // After the persona had time to answer (read delay + typing), the asker goes on.
      const text =
        followUps.left === 2
          ? "and would you move desks for it? (for-persona)"
          : "ok but honestly, is it worth it? (for-persona)";
      out.push({
        from: followUps.from,
        kind: "follow-up",
        text,
        gapMs: followUps.left === 2 ? 25_000 : 8_000,
      });
      followUps.left--;
      continue;
    }
    const from = pick(PEOPLE);
    const x = r();
    if (x < 0.45) out.push({ from, kind: "plain", text: pick(PLAIN), gapMs });
    else if (x < 0.72 && i > 0)
      out.push({
        from,
        kind: "reply",
        text: pick(REPLIES),
        replyTo: Math.max(0, i - 1 - Math.floor(r() * 3)),
        gapMs,
      });
    else if (x < 0.84) out.push({ from, kind: "question", text: pick(QUESTIONS), gapMs });
    else if (x < 0.96) {
      const other = pick(PEOPLE.filter((p) => p !== from));
      out.push({ from, kind: "mention-other", text: `@${other} did you see the email?`, gapMs });
    } else out.push({ from, kind: "command", text: "/weather@weatherbot Berlin", gapMs });
  }
  return out;
}
