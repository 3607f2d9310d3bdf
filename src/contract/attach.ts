// attach's one rule, the same at every vendor: the computer read back is handed over only when it
// is what was declared; otherwise it is refused in words and left as it is (attach changes nothing).
import type { ComputerRef, ReadBack } from "./provider.js";
import { fail, ok, type Result } from "../daemon/result.js";

export function attachedIf(read: Result<ReadBack>): Result<ComputerRef> {
  if (!read.ok) return read;
  const { ref, drift } = read.value;
  if (drift.length > 0) return fail("refused", `${ref.name} is not what was declared (left as it is): ${drift.join("; ")}`);
  return ok(ref);
}
