// The floors of the house (docs/ARCHITECTURE.md "Rooms and floors"): each room of src/ imports only
// rooms on floors below its own — never a room on its floor or above. Type-only imports count
// (tsPreCompilationDeps). `npm run lint` runs this after eslint; a violation fails CI.
//
// Read bottom up: the ground floor holds shared tools with no product knowledge; each floor
// above builds on what is below it, up to the process itself (app/).
const FLOORS = [
  ["base"], // 1  clock, timeouts, error text, shared shapes (InboundMessage, media descriptors, reactions)
  ["config", "metrics", "cli"], // 2  settings and their defaults, the metrics registry, script flags
  ["llm", "http"], // 3  the Gemini client (no product knowledge); the HTTP listener
  ["store"], // 4  SQLite: every table and named query
  ["tasks"], // 5  the task engine and the chat-action task kinds
  ["context"], // 6  the chat as the model sees it: rooms, threads, windows, envelopes
  ["memory", "media", "policy", "summary"], // 7  domains built on the context and the engine
  ["inbound", "life"], // 8  the inbound pipeline and addressing; the persona's own life (intentions, presence)
  ["owner", "planning", "telegram"], // 9  the owner's side; planning; the GramJS adapter
  ["runtime"], // 10 one persona composed and run
  ["console"], // 11 the operator console (reads the runtime)
  ["sandbox", "eval"], // 12 the offline sandbox and the scorecard (run the emulator)
  ["app"], // 13 the process: start, every persona on its account, listener and console
];

/**
 * Imports that run against the floors, each with its reason. Empty today: when one is needed,
 * add `{ from: "^src/x/file\\.ts$", to: "^src/y/", why: "…" }` and say why here.
 */
const ALLOWED_UP = [];

const floorOf = new Map(FLOORS.flatMap((rooms, i) => rooms.map((r) => [r, i])));
const alt = (rooms) => `^src/(${rooms.join("|")})/`;

const floorRules = FLOORS.flatMap((rooms, i) => {
  const notBelow = FLOORS.slice(i).flat();
  return rooms.map((room) => {
    const exceptions = ALLOWED_UP.filter((a) => new RegExp(a.from).test(`src/${room}/`));
    return {
      name: `floor-${room}`,
      severity: "error",
      comment:
        `src/${room}/ is on floor ${floorOf.get(room) + 1}: it may import only rooms below it ` +
        `(${FLOORS.slice(0, i).flat().join(", ") || "none"}), not ${notBelow.filter((r) => r !== room).join(", ")}.`,
      from: { path: `^src/${room}/` },
      to: {
        path: alt(notBelow.filter((r) => r !== room)),
        ...(exceptions.length ? { pathNot: exceptions.map((a) => a.to) } : {}),
      },
    };
  });
});

export default {
  forbidden: [
    ...floorRules,
    {
      name: "no-circular",
      severity: "error",
      comment:
        "Files of the product or the emulator import each other in a loop: cut the loop along its concept.",
      from: { path: "^(src|emulator)/" },
      to: { circular: true },
    },
    {
      name: "emulator-is-telegram",
      severity: "error",
      comment:
        "The emulator is a Telegram server: it imports no product code but Telegram's standard reaction list.",
      from: { path: "^emulator/" },
      to: { path: "^src/", pathNot: "^src/base/standard-reactions\\.ts$" },
    },
    {
      name: "product-imports-no-tooling",
      severity: "error",
      comment: "Production code never imports the bench, the scripts or test support.",
      from: { path: "^src/" },
      to: { path: "^(bench|scripts|test)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".d.ts", ".js", ".mjs"] },
  },
};
