// Package version holds the daemon's version, set at build time from package.json
// (-ldflags "-X agentrun.dev/computerd/internal/version.Version=...") so the library and the
// daemon it carries agree on one number.
package version

// Version is "dev" in a build that did not set it.
var Version = "dev"
