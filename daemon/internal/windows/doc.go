// Package windows is `computerd window`: the windows of the computer's display found by their
// title, and the first raised and given the keyboard, for a step that launched an app and waits
// for its window. It runs as the computer's user, a client of the display like the app itself,
// so it needs no method on the wire.
package windows
