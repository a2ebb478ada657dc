/**
 * One source for every response schema: the zod schema that validates an answer is also what
 * Gemini is told to produce. `z.toJSONSchema` converts it; this file narrows the result to the
 * JSON-Schema subset Gemini documents for `responseJsonSchema` (@google/genai 2.32's
 * `GenerateContentConfig.responseJsonSchema`): `$id $defs $ref $anchor type format title
 * description enum items prefixItems minItems maxItems minimum maximum anyOf oneOf properties
 * additionalProperties required` (+ `propertyOrdering`). Everything else is dropped — zod still
 * checks it on the way back — and what can be said in the subset is rewritten:
 *
 * - `const x` → `enum: [x]` (a discriminator such as `kind: "send"` stays a hard constraint);
 * - `type: [a, b]` → `anyOf: [{type: a}, {type: b}]`;
 * - `oneOf` → `anyOf` (Gemini reads them alike; `anyOf` says what it does);
 * - integer bounds at ±2^53 (zod's safe-integer defaults) are dropped as noise.
 *
 * So a discriminated union becomes `anyOf` of one object per kind with that kind's own
 * `required` list: per-kind required fields are in the schema Gemini sees.
 */
import { z } from "zod";

const KEEP: ReadonlySet<string> = new Set([
  "$id",
  "$defs",
  "$ref",
  "$anchor",
  "type",
  "format",
  "title",
  "description",
  "enum",
  "items",
  "prefixItems",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "anyOf",
  "properties",
  "additionalProperties",
  "required",
  "propertyOrdering",
]);

type Json = Record<string, unknown>;

const cache = new WeakMap<z.ZodType, Json>();

/**
 * The `responseJsonSchema` for a zod schema (its input side, so transforms are allowed), cached
 * per schema object. Throws if zod cannot express the schema in JSON Schema at all.
 */
export function geminiJsonSchema(schema: z.ZodType): Json {
  let out = cache.get(schema);
  if (!out) {
    out = narrow(
      z.toJSONSchema(schema, { io: "input", target: "draft-2020-12", unrepresentable: "throw" }) as Json,
    );
    cache.set(schema, out);
  }
  return out;
}

function narrow(node: Json): Json {
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case "const":
        if (typeof value === "string" || typeof value === "number") out.enum = [value];
        break;
      case "oneOf":
        out.anyOf = (value as Json[]).map(narrow);
        break;
      case "anyOf":
      case "prefixItems":
        out[key] = (value as Json[]).map(narrow);
        break;
      case "items":
        out.items = narrow(value as Json);
        break;
      case "properties":
      case "$defs":
        out[key] = Object.fromEntries(
          Object.entries(value as Record<string, Json>).map(([k, v]) => [k, narrow(v)]),
        );
        break;
      case "additionalProperties":
        if (typeof value === "object" && value !== null) out.additionalProperties = narrow(value as Json);
        // `false` is what z.object says anyway for unknown keys; Gemini needs no word about it.
        break;
      case "type":
        if (Array.isArray(value)) {
          out.anyOf = value.map((t) => ({ type: t }));
        } else out.type = value;
        break;
      case "minimum":
      case "maximum":
        if (typeof value === "number" && Math.abs(value) < Number.MAX_SAFE_INTEGER) out[key] = value;
        break;
      default:
        if (KEEP.has(key)) out[key] = value;
    }
  }
  return out;
}
