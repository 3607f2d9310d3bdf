package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cert = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIQ\n-----END CERTIFICATE-----\n"

func TestInstall(t *testing.T) {
	egress, run := t.TempDir(), t.TempDir()
	socket := filepath.Join(egress, "egress.sock")
	if env, err := Install(socket, run); env != nil || err != nil {
		t.Fatalf("with no CA: %v %v", env, err)
	}
	os.WriteFile(filepath.Join(egress, File), []byte(cert), 0o644)
	env, err := Install(socket, run)
	if err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(run, Bundle)
	if env["SSL_CERT_FILE"] != bundle || env["REQUESTS_CA_BUNDLE"] != bundle || env["NODE_EXTRA_CA_CERTS"] != filepath.Join(egress, File) || len(env) != 3 {
		t.Fatalf("%v", env)
	}
	got, _ := os.ReadFile(bundle)
	var system []byte
	for _, p := range systemBundles {
		if b, err := os.ReadFile(p); err == nil {
			system = append(b, '\n')
			break
		}
	}
	if string(got) != string(system)+cert {
		t.Fatalf("the bundle is not the system's roots and the CA: %d bytes", len(got))
	}
	for _, bad := range []string{"nothing", cert + "trailing", strings.Replace(cert, "CERTIFICATE", "PRIVATE KEY", 2)} {
		os.WriteFile(filepath.Join(egress, File), []byte(bad), 0o644)
		if _, err := Install(socket, run); err == nil || !strings.Contains(err.Error(), "is not one PEM certificate") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
