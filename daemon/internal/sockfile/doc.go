// Package sockfile makes a Unix socket that is its owner's alone (0600 from the start, never
// wider for a moment), replacing one left by a process that is gone and refusing a live one.
// Init's socket and the egress proxy's are both made here.
package sockfile
