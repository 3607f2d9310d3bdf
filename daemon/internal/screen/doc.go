// Package screen is screen.shot, screen.read and screen.watch on an X display: the root
// window's pixels (GetImage) as a PNG for a shot and a JPEG for the live view's frames, each
// held by its connection and read in chunks.
package screen
