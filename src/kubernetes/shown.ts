// How a value read back from the API is said in a drift sentence: as JSON, or "nothing" when absent.
export const show = (v: unknown) => JSON.stringify(v) ?? "nothing";
