// Results: an expected failure is a value, { ok: false, error: { code, message } }, never a throw.
// Its words are for people; a program reads its code, field and detail.

import { z } from "zod";
import { CLIENT_ERROR_KINDS } from "./protocol.js";

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

/**
 * What a failure is about, as data a program reads instead of its words: one shape per kind, the
 * kinds a literal list (RESULT_DETAIL_KINDS) derived from this schema. A host that says a failure
 * its own way (the Pulumi plugin in a stack's terms) switches on `kind`, never on the message.
 */
export const RESULT_DETAIL = z.discriminatedUnion("kind", [
  /**
   * The image is not on the vendor's host, and the step that needed it pulls nothing (Docker's
   * create). provider and setting: the provider's id and its setting that names its own image, the
   * one a computer that names none gets (Docker: image).
   */
  z.strictObject({ kind: z.literal("image-missing"), tag: z.string(), provider: z.string().optional(), setting: z.string().optional() }),
  /**
   * The image is not on the vendor's host and pulling it failed (Docker's ensureImage); reason is
   * why, in words ("the registry has no such image; check its name"). provider and setting: when
   * the image is the one the provider's setting names (Docker's image), its id and that setting.
   */
  z.strictObject({
    kind: z.literal("image-unpulled"),
    tag: z.string(),
    reason: z.string(),
    provider: z.string().optional(),
    setting: z.string().optional(),
  }),
  /**
   * A provider refused one of its options (the registry's providerFor, providerFromSettings):
   * provider its registry id, option the option's name as its options spell it (user,
   * desktop.display), problem the refusal's words after the option is named (": …" or " is …").
   */
  z.strictObject({ kind: z.literal("option"), provider: z.string(), option: z.string(), problem: z.string() }),
  /**
   * A ref's id names something at the vendor, but not the computer the ref names: one this
   * provider did not make, or another of its computers. A not_found that is no sign the computer
   * is gone (a release may not take it as done): nothing was done to it.
   */
  z.strictObject({ kind: z.literal("not-the-computer"), id: z.string() }),
  /** A program run inside a computer ended other than with 0: its exit code, or null when a signal (named) ended it. */
  z.strictObject({ kind: z.literal("exited"), code: z.number().int().nullable(), signal: z.string().optional() }),
]);
export type ResultDetail = z.infer<typeof RESULT_DETAIL>;
export type ResultDetailKind = ResultDetail["kind"];
/** Every detail kind, from the schema. */
export const RESULT_DETAIL_KINDS: readonly ResultDetailKind[] = RESULT_DETAIL.options.map((o) => o.shape.kind.value);

export interface ResultError {
  code: ResultCode;
  message: string;
  /** The field a check refused (the first, when there are several). */
  field?: string;
  /** Every refused field, when a check refused more than one. */
  refusals?: Refusal[];
  /** What the failure is about, as data (RESULT_DETAIL), where a program may act on it. */
  detail?: ResultDetail;
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

/** A not_found's extra when the id names something that is not the computer asked for (RESULT_DETAIL's not-the-computer). */
export function notTheComputer(id: string): Pick<ResultError, "detail"> {
  return { detail: { kind: "not-the-computer", id } };
}

/** Refusals as one invalid result naming each field, or ok when there are none. */
export function refuse(refusals: Refusal[]): Result<undefined> {
  if (refusals.length === 0) return ok();
  const [first] = refusals as [Refusal, ...Refusal[]];
  return fail("invalid", refusals.map((r) => r.message).join("; "), { field: first.field, refusals });
}

/**
 * A failed result thrown, for a caller whose failures are throws (a Pulumi step): its words as
 * the message, its code, field, refusals and detail on the error, and the whole failure as its cause.
 */
export class ResultFailure extends Error {
  readonly code: ResultCode;
  readonly field: string | undefined;
  readonly refusals: Refusal[] | undefined;
  readonly detail: ResultDetail | undefined;

  constructor(error: ResultError) {
    super(error.message, { cause: error });
    this.name = "ResultFailure";
    this.code = error.code;
    this.field = error.field;
    this.refusals = error.refusals;
    this.detail = error.detail;
  }

  /** The failure as a result's error again: its words, code, field, refusals and detail. */
  get error(): ResultError {
    return {
      code: this.code,
      message: this.message,
      ...(this.field !== undefined ? { field: this.field } : {}),
      ...(this.refusals !== undefined ? { refusals: this.refusals } : {}),
      ...(this.detail !== undefined ? { detail: this.detail } : {}),
    };
  }
}

/**
 * A provider's option refused by its constructor (a TypeError, as a bad argument is): its words as
 * the message (named, then problem), and the option's name and problem apart, which the registry
 * puts in the failure's `option` detail so a host can name the option its own way.
 */
export class OptionError extends TypeError {
  /** The option's name as its options spell it: user, desktop.display, timeouts.connectMs. */
  readonly option: string;
  /** The words after the option is named: ": …" or " is …". */
  readonly problem: string;

  /** named: how the words name the option ("DockerProvider's user option"). */
  constructor(option: string, named: string, problem: string) {
    super(`${named}${problem}`);
    this.option = option;
    this.problem = problem;
  }
}

/** A result's value, or its failure thrown as a ResultFailure. */
export function orThrow<T>(result: Result<T>): T {
  if (!result.ok) throw new ResultFailure(result.error);
  return result.value;
}
