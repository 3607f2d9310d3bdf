// The slice of @browserbasehq/sdk (2.21.0, resources/sessions/sessions.d.ts) the provider calls: a
// host that already holds the SDK's client passes its `sessions` as the api option, and the
// provider's own fetch transport (api.ts) implements the same slice. The types are the SDK's names
// and fields, written here because the package is not a dependency.

export type SessionStatus = "PENDING" | "RUNNING" | "ERROR" | "TIMED_OUT" | "COMPLETED";

export interface Session {
  id: string;
  createdAt: string;
  expiresAt: string;
  keepAlive: boolean;
  projectId: string;
  status: SessionStatus;
  startedAt: string;
  updatedAt: string;
  endedAt?: string;
  userMetadata?: Record<string, unknown>;
}

export interface SessionCreateResponse extends Session {
  connectUrl: string;
  seleniumRemoteUrl: string;
  signingKey: string;
}

export interface SessionRetrieveResponse extends Session {
  connectUrl?: string;
}

export interface SessionLiveURLs {
  debuggerFullscreenUrl: string;
  debuggerUrl: string;
  wsUrl: string;
  pages: unknown[];
}

export interface SessionCreateParams {
  projectId?: string;
  keepAlive?: boolean;
  /** Seconds, 60 to 21600; the SDK sends it as timeout. */
  api_timeout?: number;
  userMetadata?: Record<string, unknown>;
}

export interface SessionUpdateParams {
  status: "REQUEST_RELEASE";
  projectId?: string;
}

export interface SessionListParams {
  q?: string;
  status?: SessionStatus;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** The SDK's client.sessions, as far as the provider calls it; an error it throws carries status. */
export interface BrowserbaseApi {
  create(params: SessionCreateParams, options?: RequestOptions): Promise<SessionCreateResponse>;
  retrieve(id: string, options?: RequestOptions): Promise<SessionRetrieveResponse>;
  update(id: string, body: SessionUpdateParams, options?: RequestOptions): Promise<Session>;
  list(query: SessionListParams, options?: RequestOptions): Promise<Session[]>;
  debug(id: string, query?: Record<string, never>, options?: RequestOptions): Promise<SessionLiveURLs>;
}
