// Package trust puts an egress proxy's CA before a computer's programs: the proxy writes its CA's
// certificate beside its socket (computerd-egress --ca-file) when it terminates TLS for hosts with
// rules or credentials, and init, once the proxy answers, writes a bundle of the system's roots
// and that CA, and gives every program the variables the common runtimes read it from. Files and
// bytes alone: computerd links no TLS.
package trust

import (
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File is the CA certificate's name beside the proxy's socket.
const File = "ca.pem"

// Bundle is the name of the bundle init writes in its own folder.
const Bundle = "egress-trust.pem"

// systemBundles are where a Linux distribution keeps its roots as one PEM file (the paths Go's
// crypto/x509 reads), the first found taken.
var systemBundles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// Install reads the CA beside socket and, when there is one, writes dir/Bundle (the system's
// roots, then the CA) and returns the variables that point programs at it: SSL_CERT_FILE
// (OpenSSL, Go, Ruby), REQUESTS_CA_BUNDLE (Python's requests) and NODE_EXTRA_CA_CERTS (Node, the
// CA alone beside its own roots). None for a proxy that opens no TLS.
func Install(socket, dir string) (map[string]string, error) {
	ca := filepath.Join(filepath.Dir(socket), File)
	cert, err := os.ReadFile(ca)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the egress proxy's CA %s: %w", ca, err)
	}
	if block, rest := pem.Decode(cert); block == nil || block.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("the egress proxy's CA %s is not one PEM certificate", ca)
	}
	var bundle []byte
	for _, p := range systemBundles {
		if roots, err := os.ReadFile(p); err == nil {
			bundle = append(roots, '\n')
			break
		}
	}
	bundle = append(bundle, cert...)
	path := filepath.Join(dir, Bundle)
	if err := os.WriteFile(path+".partial", bundle, 0o644); err != nil {
		return nil, fmt.Errorf("writing the computer's trust bundle: %w", err)
	}
	if err := os.Rename(path+".partial", path); err != nil {
		return nil, fmt.Errorf("writing the computer's trust bundle: %w", err)
	}
	return map[string]string{"SSL_CERT_FILE": path, "REQUESTS_CA_BUNDLE": path, "NODE_EXTRA_CA_CERTS": ca}, nil
}
