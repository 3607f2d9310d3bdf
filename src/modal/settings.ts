// The daemon this package carries for Modal: its images are linux/amd64 whatever the host's arch.
import path from "node:path";
import { packageRoot } from "../docker/package.js";

export function packagedDaemon(): string {
  return path.join(packageRoot(), "dist", "computerd-linux-amd64");
}
