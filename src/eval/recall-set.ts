/**
 * The labelled set of recall by meaning (docs/eval.md "Recall", docs/memory.md): questions asked
 * in other words than the memory that answers them, hidden among a few hundred other memories of
 * the same group. One place: `npm run eval`'s recall scenes (recall.ts) and the bench's
 * `recallQuality` both read it.
 */

/** One labelled question: what is asked, and the memory it should find (said in other words). */
export interface RecallQuestion {
  /** Unique; `--scene recall-` selects them all. */
  readonly id: string;
  readonly question: string;
  readonly memory: string;
}

export const RECALL_QUESTIONS: readonly RecallQuestion[] = [
  {
    id: "recall-dog",
    question: "what did bob say about his dog?",
    memory: "bob's puppy Rex chewed the sofa",
  },
  { id: "recall-allergic", question: "is anyone allergic?", memory: "carol has a peanut allergy" },
  { id: "recall-kitten", question: "who has a kitten?", memory: "dave adopted a little cat named Tom" },
  { id: "recall-couch", question: "where did the couch go?", memory: "the sofa went to alice's new flat" },
  {
    id: "recall-automobile",
    question: "whose automobile broke down?",
    memory: "erin's car broke down on the highway",
  },
  { id: "recall-moving", question: "who is moving?", memory: "frank moves to Berlin in March" },
  { id: "recall-cooking", question: "who was cooking dinner?", memory: "gina cooked dinner for everyone" },
  { id: "recall-guitar", question: "who plays the guitar?", memory: "hank played guitar in a band" },
  { id: "recall-hiking", question: "who has been hiking?", memory: "ivy hiked the alps last summer" },
  { id: "recall-vehicle", question: "any vehicle for sale?", memory: "jack sells his old car" },
  { id: "recall-pup", question: "who got a pup?", memory: "kim's new dog is a beagle" },
  { id: "recall-painted", question: "who painted?", memory: "leo paints watercolours on weekends" },
  { id: "recall-piano", question: "who is learning piano?", memory: "mia learned piano as a child" },
  { id: "recall-cats", question: "who loves cats?", memory: "nina loves her kitten" },
  { id: "recall-sofa", question: "who needs a sofa?", memory: "oscar wants a new couch" },
  { id: "recall-walked", question: "who walked the dog?", memory: "pam walks the puppy every morning" },
  { id: "recall-cat-allergy", question: "who is allergic to cats?", memory: "quinn has a cat allergy" },
  { id: "recall-paris", question: "who visited paris?", memory: "rob visits paris every spring" },
  { id: "recall-cake", question: "who baked the cake?", memory: "sue bakes cakes for birthdays" },
  { id: "recall-bike", question: "who fixed the bike?", memory: "tom fixes bikes at his shop" },
];

const TOPICS =
  "tea chess rain trains maps kites violins lamps boats bikes jazz bread hills rivers snow books".split(" ");

/** Other memories of the group the answers hide among. */
const OTHERS = 300;
/** One labelled memory every this many others. */
const SPACING = 15;

/**
 * Every memory of the set, oldest first: the labelled ones spread among {@link OTHERS} others
 * about other things ("the group talked about tea and chess on day 3").
 */
export function recallMemories(): string[] {
  const texts: string[] = [];
  for (let i = 0; i < OTHERS; i++)
    texts.push(
      `the group talked about ${TOPICS[i % TOPICS.length]} and ${TOPICS[(i * 5 + 1) % TOPICS.length]} on day ${i}`,
    );
  RECALL_QUESTIONS.forEach((q, i) => texts.splice(i * SPACING, 0, q.memory));
  return texts;
}
