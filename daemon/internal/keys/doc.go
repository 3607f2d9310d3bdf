// Package keys is the key table input.actions takes (src/daemon/actions.ts's KEYS, held to it by
// test/vectors/keys.json) with each key's X keysym, and the keysym of any character typed.
package keys
