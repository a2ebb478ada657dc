/**
 * P5: tokens the prompt spends on what an addressed message replies to — its reply line, its
 * quote line and, when the replied-to message is outside the window, that message injected as a
 * history item — averaged over a realistic mix of replies. Built with the product's own context
 * code (lanes, window, prompt) over a real SQLite store; counted with the one estimator.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePersona } from "../src/config/persona";
import { contextPrompt, selectContext } from "../src/planning/assemble";
import { estimateTokens } from "../src/context/tokens";
import { closeDatabase, openDatabase } from "../src/store/db";
import { EntityStore, type EntityRecord } from "../src/store/entities";
import { ChatStore } from "../src/store/chats";
import { MessageStore, type StoredMessage } from "../src/store/messages";

/** One kind of reply in the mix. */
interface ReplyCase {
  readonly name: string;
  /** Share of replies of this kind in the mix (the shares add up to 1). */
  readonly share: number;
  /** Tokens of the reply line and quote line of the target's envelope. */
  readonly annotationTokens: number;
  /** Tokens of the replied-to message injected as a history item (0 when it was in view). */
  readonly injectedTokens: number;
  readonly totalTokens: number;
}

export interface ReplyFigures {
  /** The mix's weighted average of `totalTokens` (goal ≤ 60). */
  readonly averageTokens: number;
  readonly cases: readonly ReplyCase[];
}

const SELF = "500";
const GROUP = "-1000777";
const people: EntityRecord[] = [
  { peerId: SELF, kind: "user", firstName: "Mira", username: "mira_ai", bot: false, min: false },
  {
    peerId: "1001",
    kind: "user",
    firstName: "Anna",
    lastName: "Kowalska",
    username: "anna_k",
    bot: false,
    min: false,
  },
  { peerId: "1002", kind: "user", firstName: "Bob", username: "bobby", bot: false, min: false },
  { peerId: "1003", kind: "user", firstName: "Chen", lastName: "Wei", bot: false, min: false },
  { peerId: "1004", kind: "user", firstName: "Dmitri", username: "dima", bot: false, min: false },
];
const NAMES: Record<string, string> = {
  [SELF]: "Mira",
  "1001": "Anna Kowalska",
  "1002": "Bob",
  "1003": "Chen Wei",
  "1004": "Dmitri",
};
const T0 = Date.UTC(2026, 10, 20, 18, 0, 0);

const CHATTER = [
  "anyone tried the new ramen place on 5th?",
  "yes! the spicy miso is great, a bit loud on weekends though",
  "I'm thinking of going Friday, who's in?",
  "count me in if it's after 7",
  "did anyone see the game last night",
  "that last minute goal was unreal",
  "lol my cat just knocked my coffee over again",
  "need a recommendation for a good sci-fi book",
  "Project Hail Mary, easily",
  "the printer on 3rd floor is broken again btw",
];

/** Builds the store, runs each case through the product's context code, and averages. */
export function benchReplies(): ReplyFigures {
  const dir = mkdtempSync(join(tmpdir(), "bench-p5-"));
  const db = openDatabase(join(dir, "state.db"));
  try {
    const messages = new MessageStore(db, "bench");
    const chats = new ChatStore(db, "bench");
    const entities = new EntityStore(db, "bench");
    for (const p of people) entities.observe(p);
    chats.upsert({ chatId: GROUP, chatType: "supergroup", title: "Friends" });
    const persona = parsePersona("# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n", {
      file: "agents/Mira.md",
      promptDirs: [],
    });
    let next = 100;
    const post = (
      chatId: string,
      sender: string,
      text: string,
      extra: Partial<StoredMessage> = {},
    ): StoredMessage => {
      const m: StoredMessage = {
        chatId,
        messageId: next,
        senderId: sender,
        senderName: NAMES[sender]!,
        date: T0 + next * 45_000,
        text,
        isAgent: sender === SELF,
        ...extra,
      };
      next++;
      messages.insert(m);
      return m;
    };
    const measure = (
      name: string,
      share: number,
      chatId: string,
      chatType: string,
      target: StoredMessage,
    ): ReplyCase => {
      const sources = { persona, messages, entities, selfId: SELF };
      const ctx = selectContext(sources, {
        chat: { chatId, chatType },
        items: [{ messageId: target.messageId }],
      });
      const prompt = contextPrompt(sources, ctx, { memories: [], now: target.date + 5000 });
      const parts = prompt.contents[0]!.parts.flatMap((p) => ("text" in p ? [p.text] : []));
      const envelope = parts.find((p) => p.startsWith(`⟦#${target.messageId} `))!;
      const lines = envelope.split("\n").filter((l) => l.startsWith("[↩") || l.startsWith("> "));
      const annotationTokens = lines.reduce((n, l) => n + estimateTokens(`${l}\n`), 0);
      // What came along from before the room's part because of the reply (the replied-to message and its surroundings).
      const injectedTokens = parts
        .filter((p) => [...ctx.earlierIds].some((id) => p.startsWith(`⟦#${id} `)))
        .reduce((n, p) => n + estimateTokens(p), 0);
      return {
        name,
        share,
        annotationTokens,
        injectedTokens,
        totalTokens: annotationTokens + injectedTokens,
      };
    };

    const cases: ReplyCase[] = [];
    // 1. A reply inside a thread, to a message in view.
    const ramen = post(GROUP, "1001", CHATTER[0]!);
    const miso = post(GROUP, "1002", CHATTER[1]!, { replyToId: ramen.messageId });
    for (const t of CHATTER.slice(4, 8)) post(GROUP, "1004", t);
    cases.push(
      measure(
        "reply to a message in view",
        0.4,
        GROUP,
        "supergroup",
        post(GROUP, "1003", "@mira_ai have you been there?", {
          replyToId: miso.messageId,
          mentions: [{ type: "mention", offset: 0, length: 8 }],
        }),
      ),
    );
    // 2. A reply to the persona's own recent message.
    const ask = post(GROUP, "1004", "Mira, is the meetup still on?");
    const mine = post(GROUP, SELF, "yes, moved to Thursday 7pm though", { replyToId: ask.messageId });
    post(GROUP, "1002", CHATTER[8]!);
    cases.push(
      measure(
        "reply to the persona's message",
        0.25,
        GROUP,
        "supergroup",
        post(GROUP, "1004", "which room?", { replyToId: mine.messageId }),
      ),
    );
    // 3. A DM reply to a message older than the window: injected.
    const dm = "1001";
    chats.upsert({ chatId: dm, chatType: "dm", title: "Anna Kowalska" });
    const link = post(
      dm,
      "1001",
      "here's the link to the flat I mentioned: it has two bedrooms and a balcony facing the park",
    );
    for (let i = 0; i < 24; i++) post(dm, i % 2 === 0 ? SELF : "1001", CHATTER[i % CHATTER.length]!);
    cases.push(
      measure(
        "reply to a message outside the window (injected)",
        0.2,
        dm,
        "dm",
        post(dm, "1001", "what did you think of it?", { replyToId: link.messageId }),
      ),
    );
    // 4. A reply with Telegram's partial quote, to a long message in view.
    const tickets = post(
      GROUP,
      "1002",
      "Tickets are 25 each, doors open at 7, and bring your ID because they check it at the entrance",
    );
    cases.push(
      measure(
        "reply with a partial quote",
        0.1,
        GROUP,
        "supergroup",
        post(GROUP, "1001", "@mira_ai is that true?", {
          replyToId: tickets.messageId,
          quote: "bring your ID",
          mentions: [{ type: "mention", offset: 0, length: 8 }],
        }),
      ),
    );
    // 5. A reply to a message deleted since.
    const gone = post(GROUP, "1003", "oops wrong chat");
    messages.markDeleted(GROUP, [gone.messageId]);
    cases.push(
      measure(
        "reply to a deleted message",
        0.05,
        GROUP,
        "supergroup",
        post(GROUP, "1004", "@mira_ai what did Chen say?", { replyToId: gone.messageId }),
      ),
    );
    messages.commit();
    const averageTokens = cases.reduce((n, c) => n + c.share * c.totalTokens, 0);
    return { averageTokens, cases };
  } finally {
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}
