package x11

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestParseDisplay(t *testing.T) {
	for _, tc := range []struct {
		in, network, addr, refused string
	}{
		{in: ":0", network: "unix", addr: "/tmp/.X11-unix/X0"},
		{in: ":12.0", network: "unix", addr: "/tmp/.X11-unix/X12"},
		{in: "unix:3", network: "unix", addr: "/tmp/.X11-unix/X3"},
		{in: "localhost:1", network: "tcp", addr: "127.0.0.1:6001"},
		{in: "127.0.0.5:2", network: "tcp", addr: "127.0.0.5:6002"},
		{in: "[::1]:0", network: "tcp", addr: "[::1]:6000"},
		{in: "", refused: "not set"},
		{in: "example.com:0", refused: "not a display in this computer"},
		{in: "10.0.0.1:0", refused: "not a display in this computer"},
		{in: ":x", refused: "no display number"},
		{in: "nocolon", refused: "not host:number"},
	} {
		a, err := ParseDisplay(tc.in)
		if tc.refused != "" {
			if err == nil || !strings.Contains(err.Error(), tc.refused) {
				t.Errorf("%q: got %v, want refused with %q", tc.in, err, tc.refused)
			}
			continue
		}
		if err != nil || a.Network != tc.network || a.Addr != tc.addr {
			t.Errorf("%q: got %+v %v, want %s %s", tc.in, a, err, tc.network, tc.addr)
		}
	}
}

// authEntry writes one Xauthority entry as xauth does.
func authEntry(family uint16, addr, number, name string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, family)
	for _, f := range [][]byte{[]byte(addr), []byte(number), []byte(name), data} {
		binary.Write(&b, binary.BigEndian, uint16(len(f)))
		b.Write(f)
	}
	return b.Bytes()
}

func TestFindCookieTakesTheDisplaysEntry(t *testing.T) {
	file := append(authEntry(familyLocal, "host", "1", cookieName, []byte("one")), authEntry(familyLocal, "host", "7", cookieName, []byte("seven"))...)
	file = append(file, authEntry(familyLocal, "host", "", "XDM-AUTHORIZATION-1", []byte("other"))...)
	c, err := FindCookie(bytes.NewReader(file), "7")
	if err != nil || c == nil || string(c.Data) != "seven" {
		t.Fatalf("got %+v %v, want the cookie of display 7", c, err)
	}
	c, err = FindCookie(bytes.NewReader(file), "3")
	if err != nil || c != nil {
		t.Fatalf("display 3 has no entry: got %+v %v", c, err)
	}
	if _, err := FindCookie(bytes.NewReader(file[:len(file)-2]), "9"); err == nil {
		t.Fatal("a file cut short was read")
	}
}

func TestReadCookieRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.WriteFile(real, authEntry(familyWild, "", "0", cookieName, []byte("c")), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(real, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, MaxAuthFile+1), 0o600)
	for path, want := range map[string]string{link: "not a regular file", fifo: "not a regular file", big: "refused unread", "/dev/null": "not a regular file"} {
		if _, err := ReadCookie(path, "0"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", path, err, want)
		}
	}
	if c, err := ReadCookie(real, "0"); err != nil || c == nil || string(c.Data) != "c" {
		t.Errorf("the regular file: got %+v %v", c, err)
	}
	if c, err := ReadCookie(filepath.Join(dir, "missing"), "0"); err != nil || c != nil {
		t.Errorf("a missing file is no cookie: got %+v %v", c, err)
	}
}

func FuzzFindCookie(f *testing.F) {
	f.Add(authEntry(familyLocal, "h", "0", cookieName, []byte("abc")))
	f.Add([]byte{0, 1, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		FindCookie(bytes.NewReader(b), "0")
	})
}

// setupBody is a setup reply's body with one format and one screen, as Xvfb gives it.
func setupBody(pad, minKey, maxKey uint8) []byte {
	b := make([]byte, 32)
	le.PutUint32(b[4:], 0x200000)
	le.PutUint32(b[8:], 0x1fffff)
	le.PutUint16(b[16:], 4) // vendor length
	le.PutUint16(b[18:], 0xffff)
	b[20], b[21] = 1, 1
	b[26], b[27] = minKey, maxKey
	b = append(b, 'X', 'v', 'f', 'b')
	b = append(b, 24, 32, pad, 0, 0, 0, 0, 0)
	sc := make([]byte, 40)
	le.PutUint32(sc[0:], 0x100)
	le.PutUint16(sc[20:], 640)
	le.PutUint16(sc[22:], 480)
	le.PutUint32(sc[32:], 0x21)
	sc[38], sc[39] = 24, 1
	b = append(b, sc...)
	b = append(b, 24, 0, 1, 0, 0, 0, 0, 0)
	v := make([]byte, 24)
	le.PutUint32(v, 0x21)
	v[4] = 4
	le.PutUint32(v[8:], 0xff0000)
	le.PutUint32(v[12:], 0xff00)
	le.PutUint32(v[16:], 0xff)
	return append(b, v...)
}

func TestParseSetup(t *testing.T) {
	s, err := parseSetup(setupBody(32, 8, 255))
	if err != nil {
		t.Fatal(err)
	}
	if s.Screen.Width != 640 || s.Screen.Height != 480 || s.Screen.Root != 0x100 || s.Screen.Visual.RedMask != 0xff0000 {
		t.Fatalf("read %+v", s.Screen)
	}
	for _, tc := range []struct {
		body []byte
		want string
	}{
		{setupBody(12, 8, 255), "scanline pad 12"},
		{setupBody(32, 0, 255), "keycodes 0 to 255"},
		{setupBody(32, 20, 10), "keycodes 20 to 10"},
		{setupBody(32, 8, 255)[:60], "cut short"},
	} {
		if _, err := parseSetup(tc.body); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

func FuzzParseSetup(f *testing.F) {
	f.Add(setupBody(32, 8, 255))
	f.Add(setupBody(8, 8, 8))
	f.Fuzz(func(t *testing.T, b []byte) { parseSetup(b) })
}
