/**
 * The last `capacity` keys seen, for dropping at-least-once duplicates: a push may come
 * twice (a retried delivery, a replay after `resume`), and the client hands each on once.
 */
export class RecentKeys {
  private readonly keys = new Set<string>();
  private readonly order: string[] = [];

  constructor(private readonly capacity: number) {}

  /** Records `key`; false if it was already among the recent ones. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    this.order.push(key);
    while (this.order.length > this.capacity) {
      const oldest = this.order.shift();
      if (oldest !== undefined) this.keys.delete(oldest);
    }
    return true;
  }
}
