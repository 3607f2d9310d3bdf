// Where a browser's URLs live: this process's memory alone. A CDP URL and a live view URL are
// secrets (a signed URL is a key), so they are in no ref, list, error, report, log or state; a
// caller gets one at the time of use, from connect or stream.

/** A browser's secret URLs by its vendor id; never serialized (no toJSON, no enumerable view). */
export class UrlStore {
  readonly #cdp = new Map<string, string>();

  remember(id: string, cdpUrl: string | undefined): void {
    if (cdpUrl) this.#cdp.set(id, cdpUrl);
  }

  cdp(id: string): string | undefined {
    return this.#cdp.get(id);
  }

  forget(id: string): void {
    this.#cdp.delete(id);
  }

  toJSON(): Record<string, never> {
    return {};
  }
}

/** A URL that stays out of JSON and inspection: only .url reads it. */
export function secretUrl(url: string): { url: string } {
  const holder = {} as { url: string };
  Object.defineProperty(holder, "url", { value: url, enumerable: false });
  Object.defineProperty(holder, "toJSON", { value: () => ({ url: "<secret>" }), enumerable: false });
  return holder;
}
