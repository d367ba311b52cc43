// The clock's pending timers: a binary heap ordered by due instant, then creation, so timers run
// in the order of their instants and, at the same instant, in the order they were set.

export interface Timer {
  due: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

const before = (a: Timer, b: Timer) => a.due < b.due || (a.due === b.due && a.seq < b.seq);

export class TimerQueue {
  private readonly heap: Timer[] = [];

  /** The earliest timer not cancelled (cancelled ones are dropped on the way). */
  peek(): Timer | undefined {
    while (this.heap.length && this.heap[0].cancelled) this.pop();
    return this.heap[0];
  }

  push(t: Timer) {
    const h = this.heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  pop(): Timer | undefined {
    const h = this.heap;
    const top = h[0];
    const end = h.pop();
    if (h.length && end) {
      h[0] = end;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l], h[m])) m = l;
        if (r < h.length && before(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
