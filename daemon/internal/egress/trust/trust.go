// Package trust puts an egress proxy's CA before a computer's programs: the proxy writes its CA's
// certificate beside its socket (computerd-egress --ca-file) when it terminates TLS for hosts with
// rules or credentials, and init keeps a bundle of the image's system roots and that CA, which
// every program is pointed at by the variables the common runtimes read. The bundle is made again
// when the CA changes (a proxy made again by an update has a CA of its own), checked as each
// program's connection reaches the relay. Files and bytes alone: computerd links no TLS.
package trust

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// File is the CA certificate's name beside the proxy's socket.
const File = "ca.pem"

// Bundle is the name of the bundle init keeps in its own folder.
const Bundle = "egress-trust.pem"

// ImageRoots is where the provider moves the image's own bundle before an allowlisted computer
// starts, linking the system's path to this bundle instead (src/docker/system-trust.ts), so a
// program that reads the system store alone trusts the proxy's CA too. Read first: the system's
// path then leads back here.
const ImageRoots = "/etc/agentrun/image-roots.pem"

// systemBundles are where a Linux distribution keeps its roots as one PEM file (the paths Go's
// crypto/x509 reads), after ImageRoots, the first found taken.
var systemBundles = []string{
	ImageRoots,
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// Store is one computer's bundle: the image's roots, read once, and the proxy's CA as last seen.
type Store struct {
	ca, path string
	roots    []byte

	mu   sync.Mutex
	made bool
	seen string // the CA file's size and time when the bundle was last made; "" for none
}

// New is the store for a proxy at socket, its bundle in dir.
func New(socket, dir string) *Store {
	s := &Store{ca: filepath.Join(filepath.Dir(socket), File), path: filepath.Join(dir, Bundle)}
	for _, p := range systemBundles {
		if roots, err := os.ReadFile(p); err == nil {
			s.roots = append(roots, '\n')
			break
		}
	}
	return s
}

// Env are the variables that point programs at the bundle: SSL_CERT_FILE (OpenSSL, Go, Ruby),
// REQUESTS_CA_BUNDLE (Python's requests), NODE_EXTRA_CA_CERTS (Node, beside its own roots). None
// when the bundle would hold nothing (an image with no roots, and a proxy that opens no TLS at
// start): a program then keeps its own defaults.
func (s *Store) Env() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.roots) == 0 && s.seen == "" {
		return nil
	}
	return map[string]string{"SSL_CERT_FILE": s.path, "REQUESTS_CA_BUNDLE": s.path, "NODE_EXTRA_CA_CERTS": s.path}
}

// Refresh makes the bundle again when the CA is not the one it holds (or it has never been made):
// the image's roots, then the CA when there is one, which must be one PEM certificate.
func (s *Store) Refresh() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := ""
	if st, err := os.Stat(s.ca); err == nil {
		seen = fmt.Sprintf("%d:%d", st.Size(), st.ModTime().UnixNano())
	}
	if s.made && seen == s.seen {
		return nil
	}
	bundle := append([]byte(nil), s.roots...)
	if seen != "" {
		cert, err := os.ReadFile(s.ca)
		if err != nil {
			return fmt.Errorf("reading the egress proxy's CA %s: %w", s.ca, err)
		}
		if block, rest := pem.Decode(cert); block == nil || block.Type != "CERTIFICATE" || len(bytes.TrimSpace(rest)) > 0 {
			return fmt.Errorf("the egress proxy's CA %s is not one PEM certificate", s.ca)
		}
		bundle = append(bundle, cert...)
	}
	if err := os.WriteFile(s.path+".partial", bundle, 0o644); err != nil {
		return fmt.Errorf("writing the computer's trust bundle: %w", err)
	}
	if err := os.Rename(s.path+".partial", s.path); err != nil {
		return fmt.Errorf("writing the computer's trust bundle: %w", err)
	}
	s.made, s.seen = true, seen
	return nil
}
