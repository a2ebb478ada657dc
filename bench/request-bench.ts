/**
 * The anatomy of a planning request for a group answer: tokens of the answer schema, the system
 * instruction and the user turn (the chat's history), for a question asked after 16 messages of
 * a conversation held in replies, as a member of the chat would have read it. The fixed part —
 * instruction and schema — is measured per chat kind (a group, a private chat, each with and
 * without sticker sets) against what was sent before the request was made lean
 * (plan-request-before.json: the instruction and schemas of that version, kept as they were).
 * Then the share of the next request (one more exchange later) that repeats the first one's
 * beginning — what Gemini's implicit prefix cache can serve. Built with the product's own
 * context code over a real SQLite store; counted with the one estimator.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePersona } from "../src/config/persona";
import { contextPrompt, selectContext } from "../src/planning/assemble";
import type { PlanPrompt } from "../src/planning/prompt";
import { estimateTokens } from "../src/context/tokens";
import { geminiJsonSchema } from "../src/llm/json-schema";
import { planSchemaFor, type PlanAbilities } from "../src/planning/plan-schema";
import { planRequestBody } from "../src/planning/planner";
import before from "./plan-request-before.json";
import { closeDatabase, openDatabase } from "../src/store/db";
import { EntityStore, type EntityRecord } from "../src/store/entities";
import { ChatStore } from "../src/store/chats";
import { MessageStore, type StoredMessage } from "../src/store/messages";

/** A chat kind whose fixed part is measured. */
type ChatKind = "group" | "groupStickers" | "dm" | "dmStickers";

/** Tokens of the fixed part of a chat kind's request, now and before it was made lean. */
interface FixedPart {
  readonly schema: number;
  readonly schemaBefore: number;
  /** The bench persona's system instruction in this kind of chat (without sticker sets: as the kind without them). */
  readonly instruction: number;
  readonly instructionBefore: number;
}

export interface RequestFigures {
  /** Tokens of the answer schema (`responseJsonSchema`) of this chat: a group without sticker sets. */
  readonly schemaTokens: number;
  /** Tokens of the system instruction. */
  readonly instructionTokens: number;
  /** Instruction and schema per chat kind, now and before. */
  readonly fixed: Readonly<Record<ChatKind, FixedPart>>;
  /** Tokens of the user turn: chat header, history, now. */
  readonly historyTokens: number;
  /** Messages the user turn shows. */
  readonly messagesShown: number;
  /** Tokens at the start of the next request (instruction, then the turn) equal to the first one's. */
  readonly repeatedPrefixTokens: number;
  /** repeatedPrefixTokens ÷ the next request's instruction + turn tokens. */
  readonly repeatedShare: number;
}

const SELF = "500";
const GROUP = "-1000888";
const people: EntityRecord[] = [
  { peerId: SELF, kind: "user", firstName: "Mira", username: "mira_ai", bot: false, min: false },
  { peerId: "1001", kind: "user", firstName: "Anna", username: "anna_k", bot: false, min: false },
  { peerId: "1002", kind: "user", firstName: "Bob", username: "bobby", bot: false, min: false },
  { peerId: "1003", kind: "user", firstName: "Chen", lastName: "Wei", bot: false, min: false },
  { peerId: GROUP, kind: "channel", title: "Lake trip", bot: false, min: false, members: 4 },
];
const NAMES: Record<string, string> = { [SELF]: "Mira", "1001": "Anna", "1002": "Bob", "1003": "Chen Wei" };
const T0 = Date.UTC(2026, 10, 20, 18, 0, 0);
/** A conversation held in replies: [sender, text, index of the message it replies to]. */
const TALK: readonly [string, string, number?][] = [
  ["1001", "who drives to the lake on saturday?"],
  ["1002", "I can, my car fits four", 0],
  ["1003", "pick me up at 9?", 1],
  ["1002", "sure, 9 at yours", 2],
  ["1001", "what about food?"],
  ["1003", "I'll bring sandwiches", 4],
  ["1002", "and I'll bring drinks", 5],
  ["1001", "great, and a blanket", 6],
  ["1003", "does anyone have a frisbee?"],
  ["1002", "I do", 8],
  ["1001", "bring it!", 9],
  ["1003", "what time do we leave?"],
  ["1002", "9 as said", 11],
  ["1001", "perfect", 12],
  ["1003", "can't wait", 13],
  ["1002", "weather looks good"],
];

const ABILITIES: Readonly<Record<ChatKind, PlanAbilities>> = {
  group: { isDm: false, stickerSets: [], intentions: true },
  groupStickers: { isDm: false, stickerSets: ["Cats"], intentions: true },
  dm: { isDm: true, stickerSets: [], intentions: true },
  dmStickers: { isDm: true, stickerSets: ["Cats"], intentions: true },
};

const schemaTokensOf = (a: PlanAbilities) =>
  estimateTokens(JSON.stringify(geminiJsonSchema(planSchemaFor(a))));

const textOf = (p: PlanPrompt) =>
  p.contents.flatMap((c) => c.parts.map((x) => ("text" in x ? x.text : ""))).join("\n");

/** Builds the group, asks, answers, asks again; measures both requests. */
export function benchRequest(): RequestFigures {
  const dir = mkdtempSync(join(tmpdir(), "bench-request-"));
  const db = openDatabase(join(dir, "state.db"));
  try {
    const messages = new MessageStore(db, "bench");
    const chats = new ChatStore(db, "bench");
    const entities = new EntityStore(db, "bench");
    for (const p of people) entities.observe(p);
    chats.upsert({ chatId: GROUP, chatType: "supergroup", title: "Lake trip" });
    const persona = parsePersona(
      "# Agent Name\nMira\n\n# Agent Instructions\nYou are Mira, a friendly member of this chat.\n\n# Time Zone\nEurope/Berlin\n",
      {
        file: "agents/Mira.md",
        promptDirs: [],
      },
    );
    let next = 100;
    const posted: StoredMessage[] = [];
    const post = (sender: string, text: string, replyTo?: number): StoredMessage => {
      const m: StoredMessage = {
        chatId: GROUP,
        messageId: next,
        senderId: sender,
        senderName: NAMES[sender]!,
        date: T0 + next * 60_000,
        text,
        isAgent: sender === SELF,
        ...(replyTo !== undefined ? { replyToId: replyTo } : {}),
      };
      next++;
      messages.insert(m);
      posted.push(m);
      return m;
    };
    for (const [sender, text, to] of TALK)
      post(sender, text, to !== undefined ? posted[to]!.messageId : undefined);
    const sources = { persona, messages, entities, selfId: SELF };
    const ask = (q: StoredMessage) => {
      messages.commit();
      const ctx = selectContext(sources, {
        chat: { chatId: GROUP, chatType: "supergroup", title: "Lake trip", members: 4 },
        items: [{ messageId: q.messageId }],
      });
      return contextPrompt(sources, ctx, { memories: [], now: q.date + 5_000 });
    };
    const first = ask(post("1001", "Mira, are you coming with us on saturday?"));
    // The persona's instruction in a private chat: the same persona, the kind's own rules.
    chats.upsert({ chatId: "1001", chatType: "dm", title: "Anna" });
    const dmAsk: StoredMessage = {
      chatId: "1001",
      messageId: 1,
      senderId: "1001",
      senderName: "Anna",
      date: T0,
      text: "hi Mira",
      isAgent: false,
    };
    messages.insert(dmAsk);
    messages.commit();
    const dmInstruction = contextPrompt(
      sources,
      selectContext(sources, {
        chat: { chatId: "1001", chatType: "dm", title: "Anna" },
        items: [{ messageId: 1 }],
      }),
      { memories: [], now: dmAsk.date },
    ).systemInstruction;
    post(SELF, "wouldn't miss it! I'll bring a speaker", next - 1);
    const second = ask(post("1003", "Mira, can you also bring cups?"));

    const abilities = { isDm: false, stickerSets: [], intentions: true };
    const body = planRequestBody(first, abilities);
    const schemaTokens = estimateTokens(
      JSON.stringify((body.generationConfig as { responseJsonSchema: unknown }).responseJsonSchema),
    );
    const a = `${first.systemInstruction}\n${textOf(first)}`;
    const b = `${second.systemInstruction}\n${textOf(second)}`;
    let k = 0;
    while (k < a.length && k < b.length && a.charCodeAt(k) === b.charCodeAt(k)) k++;
    const repeatedPrefixTokens = estimateTokens(b.slice(0, k));
    const instruction = { group: first.systemInstruction, dm: dmInstruction };
    const fixed = Object.fromEntries(
      (Object.keys(ABILITIES) as ChatKind[]).map((k) => {
        const dm = ABILITIES[k].isDm ? "dm" : "group";
        return [
          k,
          {
            schema: schemaTokensOf(ABILITIES[k]),
            schemaBefore: estimateTokens(JSON.stringify(before.schema[k])),
            instruction: estimateTokens(instruction[dm]),
            instructionBefore: estimateTokens(before.instruction[dm]),
          },
        ];
      }),
    ) as Record<ChatKind, FixedPart>;
    return {
      schemaTokens,
      instructionTokens: estimateTokens(first.systemInstruction),
      fixed,
      historyTokens: estimateTokens(textOf(first)),
      messagesShown: (textOf(first).match(/⟦#\d+ /g) ?? []).length,
      repeatedPrefixTokens,
      repeatedShare: repeatedPrefixTokens / estimateTokens(b),
    };
  } finally {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}
