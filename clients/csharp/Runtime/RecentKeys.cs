using System.Collections.Generic;

namespace GameLiftSockets
{
    /// <summary>
    /// The last <c>capacity</c> keys seen, for dropping at-least-once duplicates: a push may come
    /// twice (a retried delivery, a replay after `resume`), and the client hands each on once.
    /// Not thread-safe: the client uses it under its lock.
    /// </summary>
    public sealed class RecentKeys
    {
        private readonly HashSet<string> keys = new HashSet<string>();
        private readonly Queue<string> order = new Queue<string>();
        private readonly int capacity;

        public RecentKeys(int capacity) { this.capacity = capacity < 1 ? 1 : capacity; }

        /// <summary>Records <paramref name="key"/>; false if it was already among the recent ones.</summary>
        public bool Add(string key)
        {
            if (!keys.Add(key)) return false;
            order.Enqueue(key);
            while (order.Count > capacity) keys.Remove(order.Dequeue());
            return true;
        }
    }
}
