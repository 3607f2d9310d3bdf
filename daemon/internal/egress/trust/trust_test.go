package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIQ\n-----END CERTIFICATE-----\n"
const cert2 = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIR\n-----END CERTIFICATE-----\n"

// The bundle is the image's roots, then the proxy's CA once there is one; a CA that appears or
// changes (a proxy made again) is taken at the next Refresh; a file that is not one certificate
// is refused and the bundle kept.
func TestStore(t *testing.T) {
	egress, run := t.TempDir(), t.TempDir()
	socket := filepath.Join(egress, "egress.sock")
	s := New(socket, run)
	s.roots = []byte("ROOTS\n")
	bundle := filepath.Join(run, Bundle)
	read := func() string { b, _ := os.ReadFile(bundle); return string(b) }
	if err := s.Refresh(); err != nil || read() != "ROOTS\n" {
		t.Fatalf("with no CA: %v %q", err, read())
	}
	if env := s.Env(); env["SSL_CERT_FILE"] != bundle || env["REQUESTS_CA_BUNDLE"] != bundle || env["NODE_EXTRA_CA_CERTS"] != bundle || len(env) != 3 {
		t.Fatalf("%v", env)
	}
	ca := filepath.Join(egress, File)
	os.WriteFile(ca, []byte(cert), 0o644)
	if err := s.Refresh(); err != nil || read() != "ROOTS\n"+cert {
		t.Fatalf("a CA that appeared: %v %q", err, read())
	}
	os.WriteFile(ca+".new", []byte(cert2), 0o644)
	os.Chtimes(ca+".new", time.Now().Add(time.Second), time.Now().Add(time.Second))
	os.Rename(ca+".new", ca)
	if err := s.Refresh(); err != nil || read() != "ROOTS\n"+cert2 {
		t.Fatalf("a CA made again: %v %q", err, read())
	}
	for i, bad := range []string{"nothing", cert + "trailing", strings.Replace(cert, "CERTIFICATE", "PRIVATE KEY", 2)} {
		os.WriteFile(ca, []byte(bad), 0o644)
		os.Chtimes(ca, time.Now().Add(time.Duration(i+2)*time.Second), time.Now().Add(time.Duration(i+2)*time.Second))
		if err := s.Refresh(); err == nil || !strings.Contains(err.Error(), "is not one PEM certificate") || read() != "ROOTS\n"+cert2 {
			t.Errorf("%q: %v %q", bad, err, read())
		}
	}
	empty := New(filepath.Join(t.TempDir(), "egress.sock"), t.TempDir())
	empty.roots = nil
	if empty.Refresh(); empty.Env() != nil {
		t.Fatalf("an image with no roots and a proxy with no CA: %v", empty.Env())
	}
}
