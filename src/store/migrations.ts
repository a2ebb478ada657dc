/**
 * Versioned schema. Entry N upgrades `user_version` N to N+1. Never edit a shipped entry:
 * append a new one.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE messages (
    agent        TEXT    NOT NULL,
    chat_id      TEXT    NOT NULL,
    message_id   INTEGER NOT NULL,
    sender_id    TEXT    NOT NULL,
    sender_name  TEXT    NOT NULL,
    date         INTEGER NOT NULL,
    text         TEXT    NOT NULL,
    reply_to_id  INTEGER,
    topic_id     INTEGER,
    is_agent     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent, chat_id, message_id)
  ) WITHOUT ROWID;

  CREATE TABLE chats (
    agent      TEXT NOT NULL,
    chat_id    TEXT NOT NULL,
    chat_type  TEXT NOT NULL,
    title      TEXT,
    access_hash TEXT,
    PRIMARY KEY (agent, chat_id)
  ) WITHOUT ROWID;

  CREATE TABLE tasks (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    agent        TEXT    NOT NULL,
    chat_id      TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    payload      TEXT    NOT NULL,
    status       TEXT    NOT NULL CHECK (status IN ('pending','running','done','failed','cancelled')),
    depends_on   TEXT    NOT NULL DEFAULT '[]',
    not_before   INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    random_id    TEXT,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    error        TEXT
  );
  CREATE INDEX tasks_open ON tasks (agent, status) WHERE status IN ('pending','running');

  CREATE TABLE memories (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    agent      TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX memories_chat ON memories (agent, chat_id);
  `,
  // Server limits survive a restart (tasks/rate-limits.ts); sends whose fate is unknown are marked
  // in doubt (tasks/scheduler.ts); deleted messages are kept, marked (store/messages.ts).
  `
  CREATE TABLE rate_limits (
    agent  TEXT    NOT NULL,
    key    TEXT    NOT NULL,
    until  INTEGER NOT NULL,
    code   TEXT    NOT NULL,
    probe  INTEGER NOT NULL DEFAULT 0,
    streak INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent, key)
  ) WITHOUT ROWID;
  ALTER TABLE tasks ADD COLUMN in_doubt INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE messages ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0;
  `,
  // 3: entities that survive a restart, and the account's update state.
  `
  CREATE TABLE entities (
    agent       TEXT NOT NULL,
    peer_id     TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('user','chat','channel')),
    access_hash TEXT,
    first_name  TEXT,
    last_name   TEXT,
    title       TEXT,
    username    TEXT,
    bot         INTEGER NOT NULL DEFAULT 0,
    min         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent, peer_id)
  ) WITHOUT ROWID;

  CREATE TABLE update_state (
    agent TEXT    NOT NULL,
    box   TEXT    NOT NULL,
    pts   INTEGER NOT NULL,
    qts   INTEGER NOT NULL DEFAULT 0,
    date  INTEGER NOT NULL DEFAULT 0,
    seq   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent, box)
  ) WITHOUT ROWID;
  `,
  // 4: owner control, policies and cost accounting.
  `
  CREATE TABLE llm_usage (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    agent           TEXT    NOT NULL,
    day             TEXT    NOT NULL,
    at              INTEGER NOT NULL,
    purpose         TEXT    NOT NULL,
    model           TEXT    NOT NULL,
    prompt_tokens   INTEGER NOT NULL,
    output_tokens   INTEGER NOT NULL,
    thinking_tokens INTEGER NOT NULL,
    cost_usd        REAL
  );
  CREATE INDEX llm_usage_day ON llm_usage (agent, day);

  CREATE TABLE chat_settings (
    agent        TEXT    NOT NULL,
    chat_id      TEXT    NOT NULL,
    paused       INTEGER NOT NULL DEFAULT 0,
    mode         TEXT,
    silent_until INTEGER,
    PRIMARY KEY (agent, chat_id)
  ) WITHOUT ROWID;

  ALTER TABLE chats ADD COLUMN username TEXT;

  CREATE INDEX tasks_received ON tasks (agent, chat_id, created_at) WHERE kind = 'received';
  `,
  // 5: the broadcast flag of channels (catch-up skips broadcast channels).
  `
  ALTER TABLE entities ADD COLUMN broadcast INTEGER NOT NULL DEFAULT 0;
  `,
  // 6: the contact flag of users (from full user objects), for the `contacts` DM policy on short updates.
  `
  ALTER TABLE entities ADD COLUMN contact INTEGER;
  `,
  // 7: thread lanes, mentions and quotes. thread_root: the root of a message's
  // reply chain (null for a message that replies to nothing), set at insert from the parent's row;
  // entities: the message's mention entities as JSON (null when it has none); quote: Telegram's
  // partial quote of the replied-to message. Stored replies are backfilled by pointer jumping
  // (each pass doubles the chain length covered; 12 passes cover 4,096 hops).
  `
  ALTER TABLE messages ADD COLUMN thread_root INTEGER;
  ALTER TABLE messages ADD COLUMN entities TEXT;
  ALTER TABLE messages ADD COLUMN quote TEXT;
  UPDATE messages SET thread_root = reply_to_id WHERE reply_to_id IS NOT NULL;
  ${`UPDATE messages SET thread_root = coalesce((SELECT p.thread_root FROM messages p
     WHERE p.agent = messages.agent AND p.chat_id = messages.chat_id AND p.message_id = messages.thread_root), thread_root)
   WHERE thread_root IS NOT NULL;
  `.repeat(12)}`,
  // 8: memories about people (subject = user id, global across chats) or notes about the chat
  // they were stored in (subject NULL — what every earlier row was, so they keep their meaning),
  // with an FTS5 index kept in step by triggers (store/memories.ts, memory/recall.ts).
  `
  ALTER TABLE memories ADD COLUMN subject TEXT;
  ALTER TABLE memories ADD COLUMN updated_at INTEGER;
  UPDATE memories SET updated_at = created_at;
  CREATE INDEX memories_subject ON memories (agent, subject) WHERE subject IS NOT NULL;
  CREATE VIRTUAL TABLE memories_fts USING fts5(content, content='memories', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
  CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
  END;
  CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
  END;
  CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.id, new.content);
  END;
  INSERT INTO memories_fts (memories_fts) VALUES ('rebuild');
  `,
  // 9: one task graph per forum topic: the topic a task's graph belongs to (NULL: the chat's own).
  `
  ALTER TABLE tasks ADD COLUMN topic_id INTEGER;
  `,
  // 10: rolling summaries, one row per thread lane (store/summaries.ts, summary/).
  `
  CREATE TABLE lane_summaries (
    agent      TEXT    NOT NULL,
    lane       TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    from_id    INTEGER NOT NULL,
    to_id      INTEGER NOT NULL,
    content    TEXT    NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (agent, lane)
  ) WITHOUT ROWID;
  `,
  // 11: reactions on the persona's messages and the persona's own reactions (store/reactions.ts).
  `
  CREATE TABLE reactions (
    agent      TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    message_id INTEGER NOT NULL,
    reactor_id TEXT    NOT NULL,
    emoji      TEXT    NOT NULL,
    date       INTEGER NOT NULL,
    is_agent   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (agent, chat_id, message_id, reactor_id)
  ) WITHOUT ROWID;
  `,
  // 12: media messages: the descriptor parsed from the update (NULL for text), and the
  // description cache shared by every persona (keyed by file unique id; "unsupported" verdicts too).
  `
  ALTER TABLE messages ADD COLUMN media TEXT;

  CREATE TABLE media_descriptions (
    unique_id   TEXT    NOT NULL PRIMARY KEY,
    kind        TEXT    NOT NULL,
    status      TEXT    NOT NULL CHECK (status IN ('ok','unsupported')),
    description TEXT,
    sticker_set TEXT,
    model       TEXT,
    at          INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // 13: a group's member count as Telegram last said (the prompt's chat header), prompt tokens
  // Gemini served from its cache (priced at the cached rate), and the small
  // pictures sent inline with planning requests (media/inline-images.ts), shared like descriptions.
  `
  ALTER TABLE entities ADD COLUMN members INTEGER;
  ALTER TABLE llm_usage ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0;

  CREATE TABLE media_images (
    unique_id TEXT    NOT NULL PRIMARY KEY,
    mime      TEXT    NOT NULL,
    bytes     BLOB    NOT NULL,
    at        INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
  // Strangers stay strangers. llm_usage: the chat a call was for, and whether it was a
  // stranger's DM (strangers' DMs have their own daily token share, policy/caps.ts). memories:
  // who said it (told_by, a user id; NULL for older rows: unknown) and where the owner widened it
  // to (shared: a JSON array of chat ids, "*" = everywhere; NULL = where its source allows).
  `
  ALTER TABLE llm_usage ADD COLUMN chat_id TEXT;
  ALTER TABLE llm_usage ADD COLUMN stranger INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE memories ADD COLUMN told_by TEXT;
  ALTER TABLE memories ADD COLUMN shared TEXT;
  CREATE INDEX memories_shared ON memories (agent) WHERE shared IS NOT NULL;
  `,
  // 13: channels the account is no longer in (left, removed or banned: ChannelForbidden,
  // CHANNEL_PRIVATE): their update state is dropped and they are never caught up.
  `
  ALTER TABLE entities ADD COLUMN gone INTEGER NOT NULL DEFAULT 0;
  `,
  // The operator console reads a chat's tasks (every kind) by chat and time.
  `
  CREATE INDEX tasks_chat ON tasks (agent, chat_id, created_at);
  `,
  // Why an addressed message got no task (a policy, a cap, its age), kept when it was refused on
  // arrival (store/refusals.ts), for the operator console. Chatter never writes here.
  `
  CREATE TABLE refusals (
    agent  TEXT    NOT NULL,
    chat_id TEXT   NOT NULL,
    msg_id INTEGER NOT NULL,
    reason TEXT    NOT NULL,
    at     INTEGER NOT NULL,
    PRIMARY KEY (agent, chat_id, msg_id)
  ) WITHOUT ROWID;
  `,
  // The operator console's plan traces (store/plan-traces.ts), apart from the tasks' payloads: one
  // row per planned received task (deleted with it by retention), its system instruction stored
  // once per distinct text, keyed by its sha256. Traces kept in older payloads stay readable there.
  `
  CREATE TABLE plan_instructions (
    sha256 TEXT NOT NULL PRIMARY KEY,
    text   TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE plan_traces (
    task_id     INTEGER NOT NULL PRIMARY KEY,
    instruction TEXT    NOT NULL,
    trace       TEXT    NOT NULL
  );
  CREATE INDEX plan_traces_instruction ON plan_traces (instruction);
  `,
  // Forum topics' titles (store/topics.ts), which Telegram sends only in a topic's service
  // messages (created, renamed); msg_id is the newest such message, so an older one arriving
  // late (a catch-up) does not undo a rename. For the operator console.
  `
  CREATE TABLE topics (
    agent    TEXT    NOT NULL,
    chat_id  TEXT    NOT NULL,
    topic_id INTEGER NOT NULL,
    title    TEXT    NOT NULL,
    msg_id   INTEGER NOT NULL,
    PRIMARY KEY (agent, chat_id, topic_id)
  ) WITHOUT ROWID;
  `,
  // The operator console (issue 30): the tasks a plan made carry the id of its `received` task
  // (plan_id; NULL for older rows and for tasks no plan made), and a finished planning round its
  // number within its chat (plan_no), counted by chats.plans so a number is never reused, even
  // after retention. llm_usage: the person a call was for (user_id: the sender of the message
  // planned for or judged; NULL for summaries, media and older rows), for costs per person.
  `
  ALTER TABLE tasks ADD COLUMN plan_id INTEGER;
  ALTER TABLE tasks ADD COLUMN plan_no INTEGER;
  ALTER TABLE chats ADD COLUMN plans INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE llm_usage ADD COLUMN user_id TEXT;
  `,
  // Issue 28: a reply to a message of another chat (reply_to_peer_id names another chat):
  // reply_to_id stays NULL — that id is not this chat's — and the row says it replied elsewhere,
  // so the prompt shows "a reply to a message in another chat" and the quote without an author.
  `
  ALTER TABLE messages ADD COLUMN reply_elsewhere INTEGER NOT NULL DEFAULT 0;
  `,
  // Issue 28: provenance of memories. source_msg: the id (in chat_id) of the message the fact
  // was said in (NULL for older rows, the console's and the owner's); edited: 1 when the operator
  // wrote or rewrote it (the console), so it is never shown as its teller's words, and never
  // merged into by a remember.
  `
  ALTER TABLE memories ADD COLUMN source_msg INTEGER;
  ALTER TABLE memories ADD COLUMN edited INTEGER NOT NULL DEFAULT 0;
  `,
  // The persona's own intentions (issue 29, store/intentions.ts, life/intentions.ts): what it
  // means to do later in a chat, in its own words, durable across restarts. not_before is when it
  // is looked at next (its due time, or later while held: asleep, a takeover silence); state says
  // what became of it; task_id the planning task it started; spoke whether that plan sent
  // something (a DM partner who ignored two of those is left alone).
  `
  CREATE TABLE intentions (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    agent       TEXT    NOT NULL,
    chat_id     TEXT    NOT NULL,
    topic_id    INTEGER,
    note        TEXT    NOT NULL,
    due_at      INTEGER NOT NULL,
    not_before  INTEGER NOT NULL,
    state       TEXT    NOT NULL
                CHECK (state IN ('pending','firing','fired','skipped','missed','cancelled','refused')),
    reason      TEXT,
    set_at      INTEGER NOT NULL,
    in_reply_to INTEGER,
    for_user    TEXT,
    plan_id     INTEGER,
    task_id     INTEGER,
    fired_at    INTEGER,
    spoke       INTEGER NOT NULL DEFAULT 0,
    shown       INTEGER NOT NULL DEFAULT 0,
    updated_at  INTEGER NOT NULL
  );
  CREATE INDEX intentions_due ON intentions (agent, not_before) WHERE state = 'pending';
  CREATE INDEX intentions_chat ON intentions (agent, chat_id, state);
  CREATE INDEX intentions_fired ON intentions (agent, fired_at) WHERE fired_at IS NOT NULL;
  `,
  // Issue 37 (point 8, store/reception.ts): how the persona's unasked remarks were received in a
  // group. spoke_at: when the last one went out; verdict what came of it (waiting: its window is
  // still open — one past the window is read as ignored); said: what showed it (a reply, 😂, the
  // stop words); stop_until: a clear "stop" holds her interjections back until then.
  `
  CREATE TABLE reception (
    agent      TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    spoke_at   INTEGER NOT NULL,
    verdict    TEXT    NOT NULL CHECK (verdict IN ('waiting','welcomed','rejected')),
    said       TEXT,
    stop_until INTEGER,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (agent, chat_id)
  ) WITHOUT ROWID;
  `,
  // A basic group upgraded to a supergroup (store/chat-moves.ts, docs/chat-upgrades.md): the old
  // chat's id and its successor's, so sends, intentions and the new chat's history follow the move.
  `
  CREATE TABLE chat_moves (
    agent    TEXT    NOT NULL,
    from_id  TEXT    NOT NULL,
    to_id    TEXT    NOT NULL,
    moved_at INTEGER NOT NULL,
    PRIMARY KEY (agent, from_id)
  ) WITHOUT ROWID;
  CREATE INDEX chat_moves_to ON chat_moves (agent, to_id);
  `,
  // Forum topics an admin closed (store/topics.ts, issue 38): messageActionTopicEdit {closed};
  // msg_id is the newest such message, so a late older one (a catch-up) does not undo a reopening.
  `
  CREATE TABLE topic_closures (
    agent    TEXT    NOT NULL,
    chat_id  TEXT    NOT NULL,
    topic_id INTEGER NOT NULL,
    closed   INTEGER NOT NULL,
    msg_id   INTEGER NOT NULL,
    PRIMARY KEY (agent, chat_id, topic_id)
  ) WITHOUT ROWID;
  `,
  // Issue 45 (store/lookup-runs.ts, docs/world.md): each look-up task's grounded calls — how many
  // were started, and what the last one found (note, JSON) once it answered or failed — so a
  // restart after the answer reuses it and one in the middle of the call asks at most once more.
  // And the askers who went (store/departures.ts, below).
  `
  CREATE TABLE lookup_runs (
    agent      TEXT    NOT NULL,
    task_id    INTEGER NOT NULL,
    chat_id    TEXT    NOT NULL,
    user_id    TEXT,
    day        TEXT    NOT NULL,
    calls      INTEGER NOT NULL,
    note       TEXT,
    started_at INTEGER NOT NULL,
    PRIMARY KEY (agent, task_id)
  ) WITHOUT ROWID;
  CREATE INDEX lookup_runs_day ON lookup_runs (agent, day);

  -- store/departures.ts (docs/life.md "People who left"): who left or was removed from a group
  -- (the newest such service message), and whom she blocked (chat_id: their DM), so an intention a
  -- plan asked for before they went is refused when its task would store it.
  CREATE TABLE departures (
    agent      TEXT    NOT NULL,
    chat_id    TEXT    NOT NULL,
    user_id    TEXT    NOT NULL,
    how        TEXT    NOT NULL CHECK (how IN ('left','removed','blocked')),
    message_id INTEGER,
    at         INTEGER NOT NULL,
    PRIMARY KEY (agent, user_id, chat_id)
  ) WITHOUT ROWID;
  `,
  // Memory by meaning (store/memory-vectors.ts, docs/memory.md, issue 41): one embedding per memory,
  // float32 in a BLOB, with the model that made it (`provider:model@dimensions`). A plain table (no
  // virtual table), so the schema opens without the sqlite-vec extension; its distance functions
  // rank in the query. A memory deleted or reworded drops its vector (embedded again later).
  `
  CREATE TABLE memory_vectors (
    memory_id   INTEGER PRIMARY KEY,
    agent       TEXT    NOT NULL,
    model       TEXT    NOT NULL,
    vec         BLOB    NOT NULL,
    embedded_at INTEGER NOT NULL
  );
  CREATE INDEX memory_vectors_model ON memory_vectors (agent, model);
  CREATE TRIGGER memory_vectors_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_vectors WHERE memory_id = old.id;
  END;
  CREATE TRIGGER memory_vectors_reworded AFTER UPDATE OF content ON memories
    WHEN new.content IS NOT old.content BEGIN
    DELETE FROM memory_vectors WHERE memory_id = old.id;
  END;
  `,
  // Memory by meaning: a memory the embedding provider refused on its own (a text it answers 400
  // for, or too long for a local server) is skipped until retry_at (store/memory-vectors.ts), so it
  // never holds back the others. Dropped with the memory, or when it is reworded.
  `
  CREATE TABLE memory_embed_failures (
    memory_id INTEGER PRIMARY KEY,
    agent     TEXT    NOT NULL,
    model     TEXT    NOT NULL,
    attempts  INTEGER NOT NULL,
    failed_at INTEGER NOT NULL,
    retry_at  INTEGER NOT NULL
  );
  CREATE TRIGGER memory_embed_failures_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_embed_failures WHERE memory_id = old.id;
  END;
  CREATE TRIGGER memory_embed_failures_reworded AFTER UPDATE OF content ON memories
    WHEN new.content IS NOT old.content BEGIN
    DELETE FROM memory_embed_failures WHERE memory_id = old.id;
  END;
  `,
  // A forum topic closed to her by a refused send (store/topics.ts) is tried again by one plan a
  // day later (a manage_topics grant since): when the refusal was written.
  `
  ALTER TABLE topic_closures ADD COLUMN refused_at INTEGER;
  `,
];
