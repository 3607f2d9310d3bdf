// Results: an expected failure is a value, { ok: false, error: { code, message } }, never a throw.

import { CLIENT_ERROR_KINDS } from "../daemon/protocol.js";

/**
 * Every code a provider's result or a library check may carry: the protocol's error kinds
 * (so a daemon's failure keeps its kind through a helper), and the vendor side's own.
 */
export const RESULT_CODES = [
  ...CLIENT_ERROR_KINDS,
  /** The computer or the vendor is not what was declared (drift, fenced, a daemon of another version). */
  "refused",
  /** The computer went away (ended, deleted) while it was in use. */
  "gone",
  /** The vendor did not answer in time, or could not be reached. */
  "unreachable",
  /** The vendor refused the key. */
  "unauthorized",
  /** A vendor call failed otherwise; the message says how. */
  "failed",
] as const;
export type ResultCode = (typeof RESULT_CODES)[number];

/** One refused field, in words that never hold the field's value. */
export interface Refusal {
  field: string;
  message: string;
}

export interface ResultError {
  code: ResultCode;
  message: string;
  /** The field a check refused (the first, when there are several). */
  field?: string;
  /** Every refused field, when a check refused more than one. */
  refusals?: Refusal[];
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: ResultError };

export function ok<T>(value: T): { ok: true; value: T };
export function ok(): { ok: true; value: undefined };
export function ok<T>(value?: T): { ok: true; value: T | undefined } {
  return { ok: true, value };
}

export function fail(code: ResultCode, message: string, extra: Omit<ResultError, "code" | "message"> = {}): { ok: false; error: ResultError } {
  return { ok: false, error: { code, message, ...extra } };
}

/** Refusals as one invalid result naming each field, or ok when there are none. */
export function refuse(refusals: Refusal[]): Result<undefined> {
  if (refusals.length === 0) return ok();
  const [first] = refusals as [Refusal, ...Refusal[]];
  return fail("invalid", refusals.map((r) => r.message).join("; "), { field: first.field, refusals });
}

/**
 * A failed result thrown, for a caller whose failures are throws (a Pulumi step): its words as
 * the message, its code, field and refusals on the error, and the whole failure as its cause.
 */
export class ResultFailure extends Error {
  readonly code: ResultCode;
  readonly field: string | undefined;
  readonly refusals: Refusal[] | undefined;

  constructor(error: ResultError) {
    super(error.message, { cause: error });
    this.name = "ResultFailure";
    this.code = error.code;
    this.field = error.field;
    this.refusals = error.refusals;
  }
}

/** A result's value, or its failure thrown as a ResultFailure. */
export function orThrow<T>(result: Result<T>): T {
  if (!result.ok) throw new ResultFailure(result.error);
  return result.value;
}
