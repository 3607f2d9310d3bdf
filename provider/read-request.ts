// @pulumi/pulumi 3.248's Node provider server reads a ReadRequest's properties without a check
// (`req.getProperties().toJavaScript()`), and `pulumi import` sends a read with none, so every
// import failed in the server before our read ran. A read with no properties is given an empty
// set, which is what an import means: nothing is known of the resource but its id.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { ReadRequest } = require("@pulumi/pulumi/proto/provider_pb.js") as {
  ReadRequest: { prototype: { getProperties(): { toJavaScript(): unknown } | undefined } };
};

const given = ReadRequest.prototype.getProperties;
ReadRequest.prototype.getProperties = function (this: unknown) {
  return given.call(this) ?? { toJavaScript: () => ({}) };
};
