package inject

import (
	"bytes"
	"cmp"
	"container/list"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"sync"
	"time"
)

// Lifetimes and bounds of the run CA's certificates.
const (
	// caLifetime: the CA lives as long as a run, in memory; a week
	// covers a long game day without the need to re-trust anything.
	caLifetime = 7 * 24 * time.Hour
	// leafLifetime is a minted certificate's validity, within the CA's.
	leafLifetime = 24 * time.Hour
	// certBackdate tolerates a server whose clock is a little behind.
	certBackdate = time.Hour
	// maxLeaves bounds the minted certificates kept: the least recently
	// used goes when a new name needs room.
	maxLeaves = 256
)

// CA is the certificate authority of a forward upstream that intercepts
// TLS (see [NewCA]). Its key is made in memory and never leaves it: it is
// not written, logged, put in an event or returned by any method; only
// the certificate is ([CA.CertPEM]).
// Keys come from crypto/rand, not from the run's seed: a CA key derived
// from a seed printed in every report would let anyone who read the
// report impersonate any host to the server under test.
type CA struct {
	cert    *x509.Certificate
	certPEM []byte
	key     crypto.Signer
	now     func() time.Time

	mu     sync.Mutex
	leaves map[string]*list.Element // name → element of lru holding a *leafEntry
	lru    list.List                // most recently used first
}

type leafEntry struct {
	name string
	cert *tls.Certificate
}

// NewCA creates a CA whose certificate is valid from now (nil: the
// system clock) for a week, with key, or a new P-256 key when key is nil.
// A forward upstream makes its own unless its spec gives one
// ([ForwardSpec].CA); giving one keeps what servers trust across
// restarts of the proxy.
func NewCA(key crypto.Signer, now func() time.Time) (*CA, error) {
	if now == nil {
		now = time.Now
	}
	if key == nil {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("run CA: key: %w", err)
		}
		key = k
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	start := now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject: pkix.Name{Organization: []string{"mcpchaos"},
			CommonName: "mcpchaos run CA " + hex.EncodeToString(serial.Bytes()[:4])},
		NotBefore:             start.Add(-certBackdate),
		NotAfter:              start.Add(caLifetime),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("run CA: certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("run CA: certificate: %w", err)
	}
	return &CA{
		cert: cert, key: key, now: now,
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		leaves:  map[string]*list.Element{},
	}, nil
}

// CertPEM is the CA's certificate, PEM-encoded: what a server trusts.
func (ca *CA) CertPEM() []byte { return bytes.Clone(ca.certPEM) }

func randomSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("run CA: serial: %w", err)
	}
	return n.Add(n, big.NewInt(1<<32)), nil // at least 5 bytes, never 0
}

// serverConfig is the TLS a client of an intercepted tunnel to host
// meets: a certificate for the name it asked for (SNI), or for host when
// it sent none. Only HTTP/1.1 is offered: the proxies speak it.
func (ca *CA) serverConfig(host string) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) {
			return ca.leaf(cmp.Or(hi.ServerName, host))
		},
	}
}

// leaf returns the certificate for name, minted on first use and cached
// (at most maxLeaves, least recently used out first).
func (ca *CA) leaf(name string) (*tls.Certificate, error) {
	ca.mu.Lock()
	if el, ok := ca.leaves[name]; ok {
		ca.lru.MoveToFront(el)
		c := el.Value.(*leafEntry).cert
		if ca.now().Before(c.Leaf.NotAfter) {
			ca.mu.Unlock()
			return c, nil
		}
		ca.lru.Remove(el)
		delete(ca.leaves, name)
	}
	ca.mu.Unlock()
	// Minted outside the lock: two handshakes for a new name may both
	// mint, which is harmless; the second replaces the first.
	c, err := ca.mint(name)
	if err != nil {
		return nil, err
	}
	ca.mu.Lock()
	defer ca.mu.Unlock()
	if el, ok := ca.leaves[name]; ok {
		ca.lru.Remove(el)
	}
	ca.leaves[name] = ca.lru.PushFront(&leafEntry{name: name, cert: c})
	for ca.lru.Len() > maxLeaves {
		old := ca.lru.Back()
		ca.lru.Remove(old)
		delete(ca.leaves, old.Value.(*leafEntry).name)
	}
	return c, nil
}

// mint makes a certificate for name (a host name or an IP address).
func (ca *CA) mint(name string) (*tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("mint a certificate for %s: %w", name, err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, err
	}
	start := ca.now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    start.Add(-certBackdate),
		NotAfter:     minTime(start.Add(leafLifetime), ca.cert.NotAfter),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(name); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{name}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return nil, fmt.Errorf("mint a certificate for %s: %w", name, err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("mint a certificate for %s: %w", name, err)
	}
	return &tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf}, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// tlsClients verifies real upstreams: the system's roots and the spec's
// extra CAs.
type tlsClients struct {
	roots *x509.CertPool
}

func newTLSClients(extraPEM []byte) (*tlsClients, error) {
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool() // no system roots here: only the extra CAs verify
	}
	if len(extraPEM) > 0 {
		certs, err := parseCAs(extraPEM)
		if err != nil {
			return nil, fmt.Errorf("upstream_ca: %w", err)
		}
		for _, c := range certs {
			roots.AddCert(c)
		}
	}
	return &tlsClients{roots: roots}, nil
}

// forHost is the TLS the proxy speaks to host's real upstream: verified
// for that name, HTTP/1.1 only.
func (t *tlsClients) forHost(host string) *tls.Config {
	return &tls.Config{
		MinVersion: tls.VersionTLS12,
		RootCAs:    t.roots,
		ServerName: host,
		NextProtos: []string{"http/1.1"},
	}
}
