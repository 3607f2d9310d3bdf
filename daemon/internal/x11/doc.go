// Package x11 is the X11 wire protocol in pure Go: the connection setup (with the
// MIT-MAGIC-COOKIE-1 from an Xauthority file), the few core requests the daemon and the desktop
// fixture send (GetImage, QueryPointer, the keyboard map, windows and fills), and the XTEST
// extension's FakeInput. Neither the server nor the Xauthority file is trusted: only a display in
// this computer is dialled, the cookie file is read only when it is a small regular file, the
// setup is refused when its scanline pad or keycode range is not what X11 allows, and every
// reply is bounded by what its request can get back before anything is allocated for it.
package x11
