// Package ca is an egress proxy's own certificate authority: made at the proxy's start, its key
// held in the proxy's memory alone, it signs a leaf for each host whose TLS the proxy terminates
// (a host with rules or a credential). Its certificate is all that leaves: a PEM file in the
// proxy's folder, which the computer reads into its trust.
package ca

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/netip"
	"sync"
	"time"
)

// skew is how far before now a certificate is valid from: a computer's clock a little behind
// the proxy's still takes it.
const skew = time.Hour

// MaxLeaves bounds the leaves held: one per intercepted host, and hosts are bounded by the rules.
const MaxLeaves = 1024

// Authority is one proxy's CA: its certificate, its key, and the leaves it has signed.
type Authority struct {
	cert    *x509.Certificate
	der     []byte
	key     crypto.Signer
	leafKey crypto.Signer // one key for every leaf: the CA's signature is what binds a host

	mu     sync.Mutex
	leaves map[string]*tls.Certificate
}

// New makes a CA valid from now until until (the proxy's deadline and a day, so a computer's
// clock a little ahead still takes it), named so that a trust store shows whose it is.
func New(name string, until time.Time) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name, Organization: []string{"agentrun egress proxy"}},
		NotBefore:             now.Add(-skew),
		NotAfter:              until,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	return &Authority{cert: cert, der: der, key: key, leafKey: leafKey, leaves: map[string]*tls.Certificate{}}, nil
}

// PEM is the CA's certificate, PEM-encoded: what a computer trusts.
func (a *Authority) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: a.der})
}

// Certificate is the CA's certificate, parsed.
func (a *Authority) Certificate() *x509.Certificate { return a.cert }

// Leaf is the certificate the proxy shows for host (a name, lower case), signed now or taken
// from those already signed.
func (a *Authority) Leaf(host string) (*tls.Certificate, error) {
	if host == "" {
		return nil, errors.New("a leaf needs a host")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if c, ok := a.leaves[host]; ok {
		return c, nil
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-skew),
		NotAfter:     a.cert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		tmpl.IPAddresses = append(tmpl.IPAddresses, ip.AsSlice())
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, a.leafKey.Public(), a.key)
	if err != nil {
		return nil, fmt.Errorf("signing a leaf for %s: %w", host, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der, a.der}, PrivateKey: a.leafKey, Leaf: leaf}
	if len(a.leaves) >= MaxLeaves {
		clear(a.leaves)
	}
	a.leaves[host] = c
	return c, nil
}

// serial is a random 128-bit serial number, as RFC 5280 asks of a CA (unique, positive).
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	return n.Add(n, big.NewInt(1))
}
