import { graphKey, type Task } from "./task";

/**
 * The scheduler's open tasks (pending and running) in memory: by id, per chat (all its graphs,
 * for chat-wide questions: owner commands, read marks) and per graph (see graphKey: what
 * scheduling walks), with the round-robin order of graphs and where the next pass starts in it.
 * The lists are the live task objects, oldest first; the database is the truth (TaskStore), this
 * is only its index.
 */
export class TaskIndex {
  private readonly byId = new Map<number, Task>();
  private readonly byChat = new Map<string, Task[]>();
  private readonly byGraph = new Map<string, Task[]>();
  /** Graphs in round-robin order; one that emptied stays until the next compact(). */
  private order: string[] = [];
  /** Where the next scheduling pass starts in the order. */
  cursor = 0;

  add(t: Task): void {
    this.byId.set(t.id, t);
    let chat = this.byChat.get(t.chatId);
    if (!chat) this.byChat.set(t.chatId, (chat = []));
    chat.push(t);
    const key = graphKey(t.chatId, t.topicId);
    let graph = this.byGraph.get(key);
    if (!graph) {
      graph = [];
      this.byGraph.set(key, graph);
      // A graph that emptied earlier may still sit in the order until the next compaction.
      if (!this.order.includes(key)) this.order.push(key);
    }
    graph.push(t);
  }

  remove(t: Task): void {
    this.byId.delete(t.id);
    const drop = (map: Map<string, Task[]>, key: string) => {
      const list = map.get(key);
      if (!list) return;
      const i = list.indexOf(t);
      if (i >= 0) list.splice(i, 1);
      if (list.length === 0) map.delete(key);
    };
    drop(this.byChat, t.chatId);
    drop(this.byGraph, graphKey(t.chatId, t.topicId));
  }

  /** An open task by its id. */
  get(id: number): Task | undefined {
    return this.byId.get(id);
  }

  /** The task is open (not finished yet). */
  has(id: number): boolean {
    return this.byId.has(id);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Every open task (a copy). */
  all(): Task[] {
    return [...this.byId.values()];
  }

  /** Open tasks of a chat, every graph of it (the live list: copy it before finishing tasks from it). */
  ofChat(chatId: string): readonly Task[] {
    return this.byChat.get(chatId) ?? [];
  }

  /** Open tasks of a graph (the live list, as ofChat). */
  ofGraph(graph: string): readonly Task[] {
    return this.byGraph.get(graph) ?? [];
  }

  /** Length of the round-robin order (emptied graphs included until compact()). */
  get graphCount(): number {
    return this.order.length;
  }

  /** The graph at a place in the round-robin order. */
  graphAt(i: number): string {
    return this.order[i]!;
  }

  /** Drop graphs with no open tasks from the round-robin order, keeping the cursor's place. */
  compact(): void {
    if (this.order.length === this.byGraph.size) return;
    // The cursor moves to the first surviving graph at or after its old place, so emptied
    // graphs never send the turn back to the front of the list.
    const n = this.order.length;
    let keep: string | undefined;
    for (let k = 0; k < n && keep === undefined; k++) {
      const c = this.order[(this.cursor + k) % n]!;
      if (this.byGraph.has(c)) keep = c;
    }
    this.order = [...new Set(this.order)].filter((c) => this.byGraph.has(c));
    const i = keep !== undefined ? this.order.indexOf(keep) : -1;
    this.cursor = i >= 0 ? i : 0;
  }

  /** The open tasks that wait for a task, directly or through another (its chat's tasks only). */
  dependentsOf(task: Task): Task[] {
    const ids = new Set([task.id]);
    const found: Task[] = [];
    // Dependents come after what they wait for: one pass in id order finds the whole chain.
    for (const t of [...this.ofChat(task.chatId)].sort((a, b) => a.id - b.id)) {
      if (t.dependsOn.some((d) => ids.has(d))) {
        ids.add(t.id);
        found.push(t);
      }
    }
    return found;
  }
}
