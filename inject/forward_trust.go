package inject

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// CAEnvVars are the environment variables through which HTTP stacks
// trust a CA: SSL_CERT_FILE (Go on Linux, OpenSSL, Python's ssl),
// REQUESTS_CA_BUNDLE (Python requests), CURL_CA_BUNDLE (curl),
// NODE_EXTRA_CA_CERTS (Node.js, in addition to its own roots).
var CAEnvVars = []string{"SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"}

// systemRootFiles are where Linux distributions (and macOS) keep the
// system's roots, in the order crypto/x509 looks for them.
var systemRootFiles = []string{
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/pki/tls/cacert.pem",
	"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
	"/etc/ssl/cert.pem",
}

// maxBundleInput bounds each file read into a bundle.
const maxBundleInput = 8 << 20

// CATrustEnv writes what a server needs to trust caPEM (a forward
// upstream's run CA, see [Registry.ForwardCA]) into dir, and returns
// the variables of [CAEnvVars] to set to the files written. getenv reads
// the server's environment as the user set it: a variable that names a
// readable file keeps its certificates, with the run CA appended; one
// that does not gets the system's roots and the run CA (all but
// NODE_EXTRA_CA_CERTS replace the stack's roots, so the server keeps
// trusting what it trusted before). The files hold certificates only.
func CATrustEnv(dir string, caPEM []byte, getenv func(string) string) (map[string]string, error) {
	if _, err := parseCAs(caPEM); err != nil {
		return nil, fmt.Errorf("run CA: %w", err)
	}
	roots, err := systemRoots()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	written := map[string]string{} // content → file, so that equal bundles share one
	for _, v := range CAEnvVars {
		base := roots
		if v == "NODE_EXTRA_CA_CERTS" {
			base = nil // Node keeps its own roots
		}
		if f := getenv(v); f != "" {
			b, err := readBounded(f)
			if err != nil {
				return nil, fmt.Errorf("%s names %s: %w", v, f, err)
			}
			base = b
		}
		content := string(joinPEM(base, caPEM))
		if f, ok := written[content]; ok {
			out[v] = f
			continue
		}
		f := filepath.Join(dir, fmt.Sprintf("ca-%d.pem", len(written)+1))
		if err := os.WriteFile(f, []byte(content), 0o644); err != nil {
			return nil, fmt.Errorf("write the CA bundle: %w", err)
		}
		written[content], out[v] = f, f
	}
	return out, nil
}

// systemRoots reads the first system root bundle there is (none is not
// an error: a minimal image has none, and the server then trusts only
// what its environment names and the run CA).
func systemRoots() ([]byte, error) {
	for _, f := range systemRootFiles {
		b, err := readBounded(f)
		if err == nil {
			return b, nil
		}
		if !os.IsNotExist(err) {
			return nil, fmt.Errorf("system roots %s: %w", f, err)
		}
	}
	return nil, nil
}

func readBounded(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBundleInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxBundleInput {
		return nil, fmt.Errorf("is over %d bytes", maxBundleInput)
	}
	return b, nil
}

// joinPEM appends b to a, on a line of its own.
func joinPEM(a, b []byte) []byte {
	out := bytes.Clone(a)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return append(out, b...)
}
