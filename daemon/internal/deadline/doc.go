// Package deadline is init's deadline: when it fires, init shuts down; deadline.extend moves
// it later, up to the maximum the provider allowed at start.
package deadline
