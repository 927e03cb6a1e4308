package sidecar

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/actuate"
)

// TestHTTPBearerToken: with a token every path but the probes answers 401
// without it or with a wrong one, and serves with it.
func TestHTTPBearerToken(t *testing.T) {
	l, _, stop := startLoop(t, nil)
	defer stop()
	api := API{Loop: l, Pull: actuate.NewPull(10), Metrics: NewMetrics(), Token: "s3cret", Pprof: true}
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	do := func(method, path, auth string) int {
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s %s: 401 without a WWW-Authenticate: Bearer challenge", method, path)
		}
		return resp.StatusCode
	}
	for _, tc := range []struct {
		method, path, auth string
		code               int
	}{
		{"GET", "/healthz", "", 200},
		{"GET", "/readyz", "", 503}, // not ready, but not 401: probes carry no token
		{"GET", "/v1/hints", "", 401},
		{"GET", "/v1/hints", "Bearer wrong", 401},
		{"GET", "/v1/hints", "s3cret", 401},
		{"GET", "/v1/hints", "Bearer s3cret", 200},
		{"GET", "/v1/hints/changes?since=0&wait_ms=1", "", 401},
		{"POST", "/v1/events", "", 401},
		{"POST", "/v1/hints", "", 401},
		{"GET", "/v1/nodes", "", 401},
		{"GET", "/metrics", "", 401},
		{"GET", "/metrics", "Bearer s3cret", 200},
		{"GET", "/debug/pprof/", "", 401},
		{"GET", "/debug/pprof/", "Bearer s3cret", 200},
	} {
		if got := do(tc.method, tc.path, tc.auth); got != tc.code {
			t.Errorf("%s %s (Authorization %q): %d, want %d", tc.method, tc.path, tc.auth, got, tc.code)
		}
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:9464": true, "localhost:1": true, "[::1]:9464": true,
		"0.0.0.0:9464": false, ":9464": false, "10.0.0.5:80": false, "bad": false} {
		if got := loopback(addr); got != want {
			t.Errorf("loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
