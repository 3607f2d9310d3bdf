// Package input is input.actions on an X display: the whole batch checked first (check.go, the
// rules of src/daemon/actions.ts's checkActions and X11's own), then run in order through XTEST
// (run.go), stopping at the first failure with every button and key the batch held released.
// Characters the keyboard map has no key for are typed through the keysym remap (keyboard.go).
package input
