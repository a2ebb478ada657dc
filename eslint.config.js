// Lint: the language's pitfalls (eslint + typescript-eslint recommended) and the rules that keep the
// architecture (docs/ARCHITECTURE.md "Rooms and floors"); which room may import which (the floors,
// no circles, the emulator apart) is .dependency-cruiser.mjs. `npm run lint` runs it with prettier
// and knip; `npm test` runs lint first, so a violation fails CI.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Real time outside the clock: allowed only in these files (each says why in ARCHITECTURE).
 * Elsewhere a bound on real I/O (a GramJS request, an HTTP attempt, a download) says so by
 * passing `systemClock` to withTimeout (src/base/timeout.ts).
 */
const REAL_TIME_ALLOWED = [
  "src/base/clock.ts", // the system clock itself
  "src/runtime/shutdown.ts", // process-level: the parent-process watch and the keep-alive handle
  "src/http/**", // request timing for the operator's listener
  "src/console/**", // the operator console's sessions and rate limits
  "src/sandbox/**", // the interactive sandbox runs on the wall clock, waiting for a person and its persona
];

const RELATIVE_WITH_EXTENSION = "/^\\.{1,2}\\/.*\\.(js|ts|mjs)$/";

/** One import style: relative imports without an extension (moduleResolution "Bundler"). */
const IMPORT_STYLE = [
  {
    selector: `ImportDeclaration[source.value=${RELATIVE_WITH_EXTENSION}]`,
    message: "Relative imports carry no extension (write './x', not './x.js').",
  },
  {
    selector: `ExportNamedDeclaration[source.value=${RELATIVE_WITH_EXTENSION}]`,
    message: "Relative imports carry no extension (write './x', not './x.js').",
  },
  {
    selector: `ImportExpression[source.value=${RELATIVE_WITH_EXTENSION}]`,
    message: "Relative imports carry no extension (write './x', not './x.js').",
  },
];

const SQL_IN_STORE =
  "SQL lives in src/store/ as named queries (a store method or function); call that instead.";
/** SQL only in src/store/: no statements, pragmas, transactions or SQLite handles elsewhere. */
const SQL_ONLY_IN_STORE = [
  { selector: "CallExpression[callee.property.name=/^(prepare|pragma)$/]", message: SQL_IN_STORE },
  {
    selector: "CallExpression[callee.property.name=/^(exec|transaction)$/][callee.object.name=/^db$/i]",
    message: SQL_IN_STORE,
  },
  {
    selector:
      "CallExpression[callee.property.name=/^(exec|transaction)$/][callee.object.property.name=/^db$/i]",
    message: SQL_IN_STORE,
  },
  // `/re/.exec(text)` is a regular expression; `x.exec(\`CREATE …\`)` is SQL.
  {
    selector:
      "CallExpression[callee.property.name='exec'][arguments.0.type='TemplateLiteral']:not([callee.object.name=/^db$/i]):not([callee.object.property.name=/^db$/i])",
    message: SQL_IN_STORE,
  },
  { selector: "ImportDeclaration[source.value='better-sqlite3']", message: SQL_IN_STORE },
  {
    selector:
      "ImportDeclaration[source.value=/store\\/db$/] ImportSpecifier[imported.name=/^(transaction|batchedWrite|commitPending)$/]",
    message: SQL_IN_STORE,
  },
];

/**
 * Files outside src/store/ allowed SQL: the task engine's own persistence (the tasks and
 * rate_limits tables), kept beside the engine whose transactions it shares.
 */
const SQL_ALLOWED = ["src/store/**", "src/tasks/task-store.ts", "src/tasks/rate-limits.ts"];

export default tseslint.config(
  {
    ignores: ["dist/**", "node_modules/**", "coverage/**", "state/**", "sessions/**", "test-artifacts/**"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        setImmediate: "readonly",
        clearImmediate: "readonly",
        queueMicrotask: "readonly",
        structuredClone: "readonly",
        AbortController: "readonly",
        AbortSignal: "readonly",
        TextEncoder: "readonly",
        TextDecoder: "readonly",
        fetch: "readonly",
        performance: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-non-null-assertion": "off",
      "no-empty": ["error", { allowEmptyCatch: true }],
      "no-control-regex": "off",
      "no-misleading-character-class": "off",
      // One import style: relative imports without an extension (moduleResolution "Bundler").
      "no-restricted-syntax": ["error", ...IMPORT_STYLE],
    },
  },
  // Only the adapter talks GramJS; the emulator, the bench and tests may (they drive a real client).
  {
    files: ["src/**/*.ts"],
    ignores: ["src/telegram/**", "src/sandbox/**", "src/eval/**"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^telegram(/|$)", message: "Only src/telegram/ imports GramJS." },
            {
              group: ["**/emulator", "**/emulator/**"],
              message:
                "Production code never imports the emulator (only src/sandbox/ and the scorecard, src/eval/, do).",
            },
            { group: ["**/bench/**"], message: "Production code never imports the bench." },
            { group: ["**/test/**"], message: "Production code never imports test support." },
            {
              group: ["**/sandbox", "**/sandbox/**"],
              allowTypeImports: true,
              message: "The sandbox is loaded lazily (await import) only when no session exists.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ["src/telegram/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            { group: ["**/emulator", "**/emulator/**"], message: "The adapter never imports the emulator." },
            { group: ["**/bench/**"], message: "Production code never imports the bench." },
            { group: ["**/test/**"], message: "Production code never imports test support." },
            { group: ["**/sandbox", "**/sandbox/**"], message: "The adapter never imports the sandbox." },
          ],
        },
      ],
    },
  },
  // The sandbox is the one production room that runs the emulator (offline, no session).
  {
    files: ["src/sandbox/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          patterns: [
            { regex: "^telegram(/|$)", message: "Only src/telegram/ imports GramJS." },
            { group: ["**/bench/**"], message: "Production code never imports the bench." },
            { group: ["**/test/**"], message: "Production code never imports test support." },
          ],
        },
      ],
    },
  },
  // Core code takes time from the Clock seam, so fake clocks drive it in tests.
  {
    files: ["src/**/*.ts"],
    ignores: REAL_TIME_ALLOWED,
    rules: {
      "no-restricted-globals": [
        "error",
        { name: "setTimeout", message: "Take time from the Clock (clock.setTimeout)." },
        { name: "setInterval", message: "Take time from the Clock." },
      ],
      "no-restricted-properties": [
        "error",
        { object: "Date", property: "now", message: "Take time from the Clock (clock.now())." },
      ],
    },
  },
  // SQL only in src/store/ (the import style repeated: a file's no-restricted-syntax is one list).
  {
    files: ["src/**/*.ts"],
    ignores: SQL_ALLOWED,
    rules: {
      "no-restricted-syntax": ["error", ...IMPORT_STYLE, ...SQL_ONLY_IN_STORE],
    },
  },
  // The operator console's page: plain ES modules run by the browser (imports name their files).
  {
    files: ["src/console/public/**/*.js"],
    languageOptions: {
      globals: {
        window: "readonly",
        document: "readonly",
        location: "readonly",
        Node: "readonly",
        URLSearchParams: "readonly",
        localStorage: "readonly",
        history: "readonly",
        TextDecoderStream: "readonly",
        CSS: "readonly",
      },
    },
    rules: { "no-restricted-syntax": "off" },
  },
);
