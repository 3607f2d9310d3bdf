package ca

import (
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"
)

func TestLeavesVerifyAgainstTheCAAloneAndAreHeld(t *testing.T) {
	a, err := New("agentrun egress test", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(a.PEM())
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("PEM: %q", a.PEM())
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil || !ca.IsCA || ca.Subject.CommonName != "agentrun egress test" {
		t.Fatalf("CA: %v %+v", err, ca)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	leaf, err := a.Leaf("api.example.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "api.example.test", Roots: roots}); err != nil {
		t.Fatalf("the leaf does not verify for its host: %v", err)
	}
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "other.example.test", Roots: roots}); err == nil {
		t.Fatal("the leaf verifies for another host")
	}
	if _, err := leaf.Leaf.Verify(x509.VerifyOptions{DNSName: "api.example.test"}); err == nil {
		t.Fatal("the leaf verifies against the system's roots")
	}
	again, _ := a.Leaf("api.example.test")
	if again != leaf {
		t.Fatal("a host's leaf was signed again, not held")
	}
	other, err := New("agentrun egress test", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if string(other.PEM()) == string(a.PEM()) {
		t.Fatal("two proxies made the same CA")
	}
	ip, err := a.Leaf("192.0.2.7")
	if err != nil || len(ip.Leaf.IPAddresses) != 1 || len(ip.Leaf.DNSNames) != 0 {
		t.Fatalf("an address's leaf: %v %+v", err, ip.Leaf)
	}
	if _, err := a.Leaf(""); err == nil {
		t.Fatal("a leaf with no host")
	}
}
