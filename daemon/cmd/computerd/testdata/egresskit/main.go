// Command egresskit is the egress container test's own upstream server and clients, built
// static and mounted into the containers the test makes (test data, not part of computerd):
//
//	egresskit serve              HTTP on :80 and TLS on :443 (a certificate for up.egress.test from
//	                             a CA of its own, printed first), one "accepted" line per connection
//	egresskit get <url>          a GET through the proxy variables; prints the status and body
//	egresskit sget <method> <url> [authorization]  the same verifying TLS against the system's
//	                             roots (SSL_CERT_FILE), as a client would
//	egresskit req <method> <url> [authorization]  the same with another method (and header)
//	egresskit direct <host:port> a dial that ignores the proxy variables
//	egresskit socket <path|host:port> <request>  the request written to a Unix socket or a TCP
//	                             port; prints the answer
//	egresskit socks <host:port> <target host> <target port>  a SOCKS5 CONNECT by name; prints
//	                             the reply's code
//	egresskit memscan <needle>...  the pids whose memory holds each needle (memscan.go)
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		serve()
	case "get":
		get("GET", os.Args[2])
	case "req":
		get(os.Args[2], os.Args[3])
	case "sget":
		verified = true
		get(os.Args[2], os.Args[3])
	case "direct":
		c, err := net.DialTimeout("tcp", os.Args[2], 3*time.Second)
		if err != nil {
			fmt.Println("no route:", err)
			os.Exit(1)
		}
		c.Close()
		fmt.Println("connected")
	case "socket":
		c, err := dial(os.Args[2])
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, strings.ReplaceAll(os.Args[3], `\r\n`, "\r\n"))
		b, _ := io.ReadAll(c)
		os.Stdout.Write(b)
	case "memscan":
		memscan(os.Args[2:])
	case "socks":
		socks(os.Args[2], os.Args[3], os.Args[4])
	}
}

func dial(to string) (net.Conn, error) {
	if strings.Contains(to, "/") {
		return net.Dial("unix", to)
	}
	return net.Dial("tcp", to)
}

func socks(proxy, host, port string) {
	c, err := dial(proxy)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	var p int
	fmt.Sscan(port, &p)
	req := append([]byte{5, 1, 0, 5, 1, 0, 3, byte(len(host))}, host...)
	c.Write(append(req, byte(p>>8), byte(p)))
	var r [12]byte
	if _, err := io.ReadFull(c, r[:]); err != nil {
		fmt.Println("no reply:", err)
		os.Exit(1)
	}
	fmt.Printf("reply %d", r[3])
}

type counted struct{ net.Listener }

func (l counted) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		fmt.Println("accepted", l.Addr())
	}
	return c, err
}

func serve() {
	// EGRESSKIT_KEYS: the Authorization values it knows, comma-separated; a request that sends
	// one is answered with its place (key=1), never the value, so the computer never reads it.
	keys := strings.Split(os.Getenv("EGRESSKIT_KEYS"), ",")
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from upstream %s", r.URL.Path)
		if a := r.Header.Values("Authorization"); len(a) > 0 {
			which := "unknown"
			for i, k := range keys {
				if len(a) == 1 && k != "" && a[0] == k {
					which = fmt.Sprint(i + 1)
				}
			}
			fmt.Fprintf(w, " key=%s", which)
		}
	})
	l80, err := net.Listen("tcp", ":80")
	if err != nil {
		panic(err)
	}
	l443, err := net.Listen("tcp", ":443")
	if err != nil {
		panic(err)
	}
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "egresskit upstream CA"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, _ := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "up.egress.test"}, DNSNames: []string{"up.egress.test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, _ := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	pem.Encode(os.Stdout, &pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	fmt.Println("serving")
	go http.Serve(tls.NewListener(counted{l443}, cfg), h)
	http.Serve(counted{l80}, h)
}

// verified: sget's TLS is verified (the system's roots, which SSL_CERT_FILE names), get's is not.
var verified bool

func get(method, url string) {
	tr := &http.Transport{Proxy: http.ProxyFromEnvironment, TLSClientConfig: &tls.Config{InsecureSkipVerify: !verified}}
	c := &http.Client{Transport: tr, Timeout: 15 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	if len(os.Args) > 4 {
		req.Header.Set("Authorization", os.Args[4])
	}
	r, err := c.Do(req)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	b, _ := io.ReadAll(r.Body)
	fmt.Printf("%d %s", r.StatusCode, b)
}
