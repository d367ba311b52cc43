// A signal for one call that follows a long-lived one. The model SDKs add an abort listener to
// the signal a request is given and never take it off (openai's fetchWithTimeout and
// @anthropic-ai/sdk's: `signal.addEventListener('abort', abort, { once: true })`, which only a
// fired abort removes), so a run's own signal would keep one listener per request for the whole
// run, and Node warns past ten ("MaxListenersExceededWarning ... 11 abort listeners"). Each call
// gets its own child instead, whose one link to the run's signal is removed when the call ends.

export interface CallSignal {
  signal?: AbortSignal;
  /** Unlinks the child from the parent (call it when the call has ended, however it ended). */
  release(): void;
}

export function callSignal(parent?: AbortSignal): CallSignal {
  if (!parent) return { release: () => undefined };
  const child = new AbortController();
  if (parent.aborted) {
    child.abort(parent.reason);
    return { signal: child.signal, release: () => undefined };
  }
  const follow = () => child.abort(parent.reason);
  parent.addEventListener("abort", follow, { once: true });
  return { signal: child.signal, release: () => parent.removeEventListener("abort", follow) };
}
