// This project's own definitions of the part of Modal's gRPC API the wire fake serves: the
// control plane (modal.client.ModalClient) and the task command router (modal.task_command_router.
// TaskCommandRouter) the SDK dials for exec. Only the messages and fields served are defined; the
// field numbers are those of Modal's published modal_proto/api.proto and task_command_router.proto,
// so the real SDK's bytes read as it wrote them, and fields not defined here are skipped.
import protobuf from "protobufjs";

const CLIENT = `
syntax = "proto3";
package modal.client;

message Empty {}

// A status's details (the grpc-status-details-bin trailer): a retry policy tells the SDK when to try again.
message Any { string type_url = 1; bytes value = 2; }
message RPCStatus { int32 code = 1; string message = 2; repeated Any details = 3; }
message RPCRetryPolicy { float retry_after_secs = 1; }

message GenericResult {
  int32 status = 1;
  string exception = 2;
  int32 exitcode = 3;
}

message AuthTokenGetRequest {}
message AuthTokenGetResponse { string token = 1; }

message AppGetOrCreateRequest {
  string app_name = 1;
  string environment_name = 2;
  int32 object_creation_type = 3;
}
message AppGetOrCreateResponse { string app_id = 1; }

message EnvironmentGetOrCreateRequest {
  string deployment_name = 1;
  int32 object_creation_type = 2;
}
message EnvironmentSettings { string image_builder_version = 1; string webhook_suffix = 2; }
message EnvironmentMetadata { string name = 1; EnvironmentSettings settings = 2; }
message EnvironmentGetOrCreateResponse { string environment_id = 1; EnvironmentMetadata metadata = 2; }

message BaseImage { string image_id = 1; string docker_tag = 2; }
message Image {
  repeated BaseImage base_images = 5;
  repeated string dockerfile_commands = 6;
}
message ImageGetOrCreateRequest {
  Image image = 2;
  string app_id = 4;
  bool force_build = 7;
  string builder_version = 9;
}
message ImageGetOrCreateResponse { string image_id = 1; GenericResult result = 2; }
message ImageFromIdRequest { string image_id = 1; }
message ImageFromIdResponse { string image_id = 1; }
message ImageDeleteRequest { string image_id = 1; }

message Resources {
  uint32 memory_mb = 2;
  uint32 milli_cpu = 3;
  uint32 memory_mb_max = 5;
  uint32 milli_cpu_max = 7;
}
message NetworkAccess {
  int32 network_access_type = 1;
  repeated string allowed_cidrs = 2;
}
message Sandbox {
  repeated string entrypoint_args = 1;
  string image_id = 3;
  repeated string secret_ids = 4;
  Resources resources = 5;
  uint32 timeout_secs = 7;
  optional string workdir = 8;
  bool block_network = 11;
  NetworkAccess network_access = 22;
  optional string runtime = 28;
  optional string name = 30;
}
message SandboxTag { string tag_name = 1; string tag_value = 2; }
message CommandRouterAccess { string jwt = 1; string url = 2; }

message SandboxCreateV2Request {
  string app_id = 1;
  Sandbox definition = 2;
  repeated SandboxTag tags = 4;
}
message SandboxCreateV2Response {
  string sandbox_id = 1;
  string task_id = 3;
  CommandRouterAccess command_router_access = 5;
}

message SandboxGetCommandRouterAccessRequest {
  oneof target { string sandbox_id = 1; string task_id = 2; }
}
message SandboxGetCommandRouterAccessResponse { string jwt = 1; string url = 2; }

message SandboxGetTaskIdRequest { string sandbox_id = 1; optional float timeout = 2; bool wait_until_ready = 3; }
message SandboxGetTaskIdResponse { optional string task_id = 1; optional GenericResult task_result = 2; }

message SandboxListRequest {
  string app_id = 1;
  double before_timestamp = 2;
  string environment_name = 3;
  bool include_finished = 4;
  repeated SandboxTag tags = 5;
}
message SandboxInfo { string id = 1; double created_at = 3; string app_id = 5; repeated SandboxTag tags = 6; }
message SandboxListResponse { repeated SandboxInfo sandboxes = 1; }

message SandboxTagsGetRequest { string sandbox_id = 1; }
message SandboxTagsGetResponse { repeated SandboxTag tags = 1; }

message SandboxTerminateRequest { string sandbox_id = 1; }
message SandboxTerminateResponse { GenericResult existing_result = 1; }

message SandboxWaitRequest { string sandbox_id = 1; float timeout = 2; }
message SandboxWaitResponse { GenericResult result = 1; }
`;

const ROUTER = `
syntax = "proto3";
package modal.task_command_router;

message TaskExecStartRequest {
  string task_id = 1;
  string exec_id = 2;
  repeated string command_args = 3;
  int32 stdout_config = 4;
  int32 stderr_config = 5;
  optional uint32 timeout_secs = 6;
  optional string workdir = 7;
  map<string, string> env = 12;
}
message TaskExecStartResponse {}

message TaskExecStdioReadRequest {
  string task_id = 1;
  string exec_id = 2;
  uint64 offset = 3;
  int32 file_descriptor = 4;
}
message TaskExecStdioReadResponse { bytes data = 1; }

message TaskExecStdinWriteRequest {
  string task_id = 1;
  string exec_id = 2;
  uint64 offset = 3;
  bytes data = 4;
  bool eof = 5;
}
message TaskExecStdinWriteResponse {}


message TaskSnapshotFilesystemRequest {
  string task_id = 1;
  string snapshot_id = 2;
  optional int64 ttl_seconds = 3;
  string container_id = 5;
}
message TaskSnapshotFilesystemResponse { string image_id = 1; }

message TaskExecWaitRequest { string task_id = 1; string exec_id = 2; }
message TaskExecWaitResponse { oneof exit_status { int32 code = 1; int32 signal = 2; } }
`;

/**
 * The served RPCs, exactly those the provider's path calls (the server's log of Core, case by
 * case): service, method, request and response message, and whether the answer streams.
 */
export const CONTROL_PLANE = "modal.client.ModalClient";
export const ROUTER_SERVICE = "modal.task_command_router.TaskCommandRouter";

export const RPCS = {
  [CONTROL_PLANE]: {
    AuthTokenGet: ["AuthTokenGetRequest", "AuthTokenGetResponse"],
    AppGetOrCreate: ["AppGetOrCreateRequest", "AppGetOrCreateResponse"],
    EnvironmentGetOrCreate: ["EnvironmentGetOrCreateRequest", "EnvironmentGetOrCreateResponse"],
    ImageGetOrCreate: ["ImageGetOrCreateRequest", "ImageGetOrCreateResponse"],
    ImageFromId: ["ImageFromIdRequest", "ImageFromIdResponse"],
    ImageDelete: ["ImageDeleteRequest", "Empty"],
    SandboxCreateV2: ["SandboxCreateV2Request", "SandboxCreateV2Response"],
    SandboxGetCommandRouterAccess: ["SandboxGetCommandRouterAccessRequest", "SandboxGetCommandRouterAccessResponse"],
    SandboxGetTaskIdV2: ["SandboxGetTaskIdRequest", "SandboxGetTaskIdResponse"],
    SandboxListV2: ["SandboxListRequest", "SandboxListResponse"],
    SandboxTagsGetV2: ["SandboxTagsGetRequest", "SandboxTagsGetResponse"],
    SandboxTerminateV2: ["SandboxTerminateRequest", "SandboxTerminateResponse"],
    SandboxWaitV2: ["SandboxWaitRequest", "SandboxWaitResponse"],
  },
  [ROUTER_SERVICE]: {
    TaskExecStart: ["TaskExecStartRequest", "TaskExecStartResponse"],
    TaskExecStdioRead: ["TaskExecStdioReadRequest", "TaskExecStdioReadResponse", "stream"],
    TaskExecStdinWrite: ["TaskExecStdinWriteRequest", "TaskExecStdinWriteResponse"],
    TaskExecWait: ["TaskExecWaitRequest", "TaskExecWaitResponse"],
    TaskSnapshotFilesystem: ["TaskSnapshotFilesystemRequest", "TaskSnapshotFilesystemResponse"],
  },
} as const satisfies Record<string, Record<string, readonly [string, string] | readonly [string, string, "stream"]>>;

const root = new protobuf.Root();
protobuf.parse(CLIENT, root, { keepCase: false });
protobuf.parse(ROUTER, root, { keepCase: false });

/** A message type of either package by its service's package and name. */
export function messageType(service: string, name: string): protobuf.Type {
  return root.lookupType(`${service.slice(0, service.lastIndexOf("."))}.${name}`);
}

/** The grpc-status-details-bin of a status whose retry policy asks the SDK to try again after so many seconds (Modal's throttle). */
export function retryAfter(code: number, message: string, seconds: number): Buffer {
  const Policy = root.lookupType("modal.client.RPCRetryPolicy");
  const Status = root.lookupType("modal.client.RPCStatus");
  const value = Policy.encode(Policy.fromObject({ retryAfterSecs: seconds })).finish();
  const details = [{ typeUrl: "type.googleapis.com/modal.client.RPCRetryPolicy", value }];
  return Buffer.from(Status.encode(Status.fromObject({ code, message, details })).finish());
}

/** GenericResult's statuses (api.proto's GenericStatus). */
export const STATUS = { success: 1, failure: 2, terminated: 3, timeout: 4 } as const;
/** NetworkAccess.NetworkAccessType. */
export const NETWORK_BLOCKED = 2;
