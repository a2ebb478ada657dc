// A plan beside the message it answered (or among the plans of messages not on the page): its
// round, what it cost, its tasks and schedules, the request as sent and the plan returned.
import { el, links, time, userText } from "./dom.js";

/** The `schedule` entries of a returned plan: they set intentions (the Now page's table), not tasks. */
const scheduled = (p) =>
  Array.isArray(p.plan?.tasks) ? p.plan.tasks.filter((t) => t && t.kind === "schedule") : [];

const planName = (p) => (p.no !== null ? `plan ${p.no}` : `planning round (task #${p.id})`);

/** What a plan's origin says, where it shows. */
const ORIGIN = {
  "dry-run": "dry run: not sent (no GEMINI_API_KEY)",
  echo: "not from a model: the sandbox's offline echo planner",
};

export function planView(persona, chatId, p) {
  return el(
    "section",
    {
      class: `plan${p.origin ? " not-model" : ""}`,
      id: `plan-${p.id}`,
      dataset: { planId: String(p.id), planNo: p.no !== null ? String(p.no) : "", anchor: `p${p.id}` },
    },
    el(
      "div",
      {},
      p.no !== null
        ? el("a", { class: "plan-link", href: links.plan(persona, chatId, p.no) }, el("b", {}, planName(p)))
        : el("b", {}, planName(p)),
      p.replacedBy
        ? [
            " · ",
            el("span", { class: "replaced" }, "replaced by a newer plan"),
            p.replacedBy.no !== null
              ? [
                  " (",
                  el("a", { href: links.plan(persona, chatId, p.replacedBy.no) }, `plan ${p.replacedBy.no}`),
                  ")",
                ]
              : ` (task #${p.replacedBy.id})`,
          ]
        : ` · ${p.status}`,
      p.origin ? [" · ", el("span", { class: "origin" }, ORIGIN[p.origin] ?? p.origin)] : "",
      p.messages.length ? " · for " : "",
      p.messages.flatMap((i, n) => [
        n ? ", " : "",
        el("a", { href: links.message(persona, chatId, i) }, `#${i}`),
      ]),
      (p.intentions ?? []).flatMap((i) => [
        ` · for intention #${i.id} (`,
        userText(i.note, ""),
        i.inReplyTo !== null
          ? [
              ", set answering ",
              el("a", { href: links.message(persona, chatId, i.inReplyTo) }, `#${i.inReplyTo}`),
            ]
          : "",
        ")",
      ]),
      ` · ${time(p.createdAt)}`,
    ),
    p.replacedBy
      ? el(
          "div",
          { class: "why" },
          "Newer messages came in while this round planned: they were planned together in the newer round, and whatever this one came back with was not carried out.",
        )
      : p.error
        ? el("div", { class: "why" }, p.error)
        : null,
    p.usage.length
      ? el(
          "div",
          { class: "muted" },
          p.usage
            .map(
              (u) =>
                `${u.model}: ${u.promptTokens} in + ${u.outputTokens} out + ${u.thinkingTokens} thinking tokens${u.costUsd !== null ? `, $${u.costUsd.toFixed(5)}` : ""}`,
            )
            .join("; "),
        )
      : null,
    p.tasks.length || scheduled(p).length
      ? el(
          "ul",
          { class: "tasks" },
          scheduled(p).map((t) =>
            el(
              "li",
              { class: "schedule" },
              `schedule — ${p.origin === "dry-run" ? "dry run: not set" : "an intention"} `,
              t.at !== undefined
                ? `at ${t.at} `
                : t.after_minutes !== undefined
                  ? `in ${t.after_minutes} min `
                  : "",
              userText(String(t.note ?? "")),
            ),
          ),
          ...p.tasks.map((t) =>
            el(
              "li",
              { dataset: { taskId: String(t.id) } },
              `#${t.id} ${t.kind} — ${p.origin === "dry-run" ? "dry run: not sent" : t.status}${t.error ? ` (${t.error})` : ""} `,
              t.payload.text !== undefined ? userText(String(t.payload.text)) : "",
              t.payload.emoji !== undefined ? `${t.payload.emoji} on #${t.payload.messageId}` : "",
              t.payload.sentId !== undefined
                ? [
                    " → ",
                    el(
                      "a",
                      { href: links.message(persona, chatId, t.payload.sentId) },
                      `#${t.payload.sentId}`,
                    ),
                  ]
                : "",
            ),
          ),
        )
      : el(
          "p",
          { class: "muted tasks-none" },
          p.replacedBy
            ? "no task: replaced by a newer plan"
            : p.status === "done"
              ? p.origin === "dry-run"
                ? "dry run: not sent — nothing was planned"
                : "no task: the plan chose to do nothing"
              : "no task yet",
        ),
    p.request
      ? el(
          "details",
          { class: "request", dataset: { key: `req-${p.id}` } },
          el("summary", {}, "the request"),
          el("h4", {}, "system instruction"),
          el("pre", { class: "system" }, p.request.system ?? ""),
          el("h4", {}, "user turn"),
          (p.request.parts ?? []).map((t) => el("pre", { class: "part" }, t)),
          el("h4", {}, "answer schema: task kinds"),
          el("p", { class: "kinds" }, (p.request.kinds ?? []).join(", ")),
        )
      : el("div", { class: "muted" }, "request not stored for this plan"),
    p.plan
      ? el(
          "details",
          { class: "returned", dataset: { key: `ret-${p.id}` } },
          el(
            "summary",
            {},
            p.plan.silent
              ? `no usable plan: ${p.plan.silent}`
              : p.origin
                ? `plan returned (${ORIGIN[p.origin] ?? p.origin})`
                : "plan returned",
          ),
          el("pre", {}, JSON.stringify(p.plan, null, 2)),
        )
      : null,
  );
}
