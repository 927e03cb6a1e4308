package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunHTTPSWithTokenLogsNoSecret: `run` with http.tls and
// http.token_file serves HTTPS, refuses the API without the bearer token,
// keeps the probes open, leaves pprof off, and no secret (the token, the
// Kafka SASL password) appears in its debug log.
func TestRunHTTPSWithTokenLogsNoSecret(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, pool := selfSignedCert(t, dir)
	const token, password = "tok-9f2c71d0e4", "pw-51ab77c3"
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"RMSIDECAR_PROFILES_PATH=" + filepath.Join(dir, "p.db"),
		"RMSIDECAR_ACTUATORS_JOURNAL=" + filepath.Join(dir, "j.jsonl"),
		"RMSIDECAR_HTTP_TOKEN_FILE=" + tokenFile,
		"RMSIDECAR_HTTP_TLS_CERT_FILE=" + certFile, "RMSIDECAR_HTTP_TLS_KEY_FILE=" + keyFile,
		"RMSIDECAR_KAFKA_SASL_USER=svc", "RMSIDECAR_KAFKA_SASL_PASSWORD=" + password}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	addr := freeAddr(t)
	code := make(chan int, 1)
	go func() {
		code <- execute(ctx, []string{"run", "--http", addr, "--log-format", "json", "--log-level", "debug", "--demo-speed", "20"},
			stdio{in: strings.NewReader(""), out: &out, err: &errb}, env)
	}()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(path, auth string) int {
		req, _ := http.NewRequest("GET", "https://"+addr+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			return -1
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(60 * time.Second)
	for get("/healthz", "") != 200 {
		if time.Now().After(deadline) {
			t.Fatalf("no HTTPS /healthz within 60 s:\n%s", errb.String())
		}
		select {
		case c := <-code:
			t.Fatalf("run exited %d early:\n%s", c, errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	for _, tc := range []struct {
		path, auth string
		code       int
	}{
		{"/v1/hints", "", 401},
		{"/v1/hints", "Bearer " + token, 200},
		{"/metrics", "", 401},
		{"/debug/pprof/", "Bearer " + token, 404},
	} {
		if got := get(tc.path, tc.auth); got != tc.code {
			t.Errorf("GET %s (auth %v): %d, want %d", tc.path, tc.auth != "", got, tc.code)
		}
	}
	if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("plain HTTP answered 200 on the HTTPS port")
		}
	}
	cancel()
	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("exit %d:\n%s", c, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not stop within 30 s")
	}
	logs := errb.String() + out.String()
	for _, secret := range []string{token, password} {
		if strings.Contains(logs, secret) {
			t.Errorf("secret %q in the log", secret)
		}
	}
	if !strings.Contains(logs, `"tls":true`) || !strings.Contains(logs, `"token":true`) {
		t.Errorf("the http start line does not say TLS and token are on")
	}
}

// selfSignedCert writes a certificate for 127.0.0.1 and its key, and
// returns a pool trusting it.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rmsidecar test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
