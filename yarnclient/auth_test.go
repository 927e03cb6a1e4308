package yarnclient

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
)

// krbFiles writes a krb5.conf (KDC on a dead port, TCP only) and a keytab
// for rmsidecar@EXAMPLE.COM, and returns their paths.
func krbFiles(t *testing.T, defaultRealm bool) (conf, kt string) {
	t.Helper()
	dir := t.TempDir()
	dead := strings.TrimPrefix(deadURL(t), "http://")
	realmLine := "  default_realm = EXAMPLE.COM\n"
	if !defaultRealm {
		realmLine = ""
	}
	conf = filepath.Join(dir, "krb5.conf")
	body := "[libdefaults]\n" + realmLine + "  udp_preference_limit = 1\n  dns_lookup_kdc = false\n\n[realms]\n  EXAMPLE.COM = {\n    kdc = " + dead + "\n  }\n"
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	k := keytab.New()
	if err := k.AddEntry("rmsidecar", "EXAMPLE.COM", "not-a-real-secret", time.Now(), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	b, err := k.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	kt = filepath.Join(dir, "rmsidecar.keytab")
	if err := os.WriteFile(kt, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return conf, kt
}

// spnegoRM behaves like an RM behind Hadoop's AuthenticationFilter: no
// cookie and no token -> 401 Negotiate; a token -> 200 and a hadoop.auth
// cookie; the cookie -> 200.
type spnegoRM struct {
	srv    *httptest.Server
	hits   atomic.Int32
	mu     sync.Mutex
	bodies []string
	users  []string
}

func newSpnegoRM(t *testing.T, challenge string) *spnegoRM {
	s := &spnegoRM{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(b))
		s.users = append(s.users, r.URL.Query().Get("user.name"))
		s.mu.Unlock()
		if ck, err := r.Cookie("hadoop.auth"); err == nil && ck.Value == "u=rmsidecar&t=kerberos" {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(fixture(t, "rm/node_resource.json"))
			return
		}
		if r.Header.Get("Authorization") == "Negotiate ZmFrZS10b2tlbg==" {
			http.SetCookie(w, &http.Cookie{Name: "hadoop.auth", Value: "u=rmsidecar&t=kerberos", Path: "/"})
			w.Header().Set("WWW-Authenticate", "Negotiate oRQwEqADCgEAoQsGCSqGSIb3EgECAg==")
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(fixture(t, "rm/node_resource.json"))
			return
		}
		w.Header().Set("WWW-Authenticate", challenge)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte("Authentication required"))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func spnegoClient(t *testing.T, url string, authorize func(*http.Request) error) *Client {
	t.Helper()
	conf, kt := krbFiles(t, true)
	c, _ := testClient(t, func(cfg *Config) {
		cfg.SPNEGO = &SPNEGOConfig{Principal: "rmsidecar@EXAMPLE.COM", Keytab: kt, Krb5Conf: conf}
	}, url)
	neg, ok := c.hc.Transport.(*negotiateTransport)
	if !ok {
		t.Fatalf("transport = %T, want *negotiateTransport", c.hc.Transport)
	}
	if authorize != nil {
		neg.authorize = authorize
	}
	return c
}

func TestSPNEGOHandshakeAndCookie(t *testing.T) {
	rm := newSpnegoRM(t, "Negotiate")
	var calls atomic.Int32
	c := spnegoClient(t, rm.srv.URL, func(r *http.Request) error {
		calls.Add(1)
		r.Header.Set("Authorization", "Negotiate ZmFrZS10b2tlbg==")
		return nil
	})
	ctx := context.Background()
	// A write: the body must survive the 401 round trip.
	if _, err := c.UpdateNodeResource(ctx, node1, Resource{MemoryMB: 4096, VCores: 3}, NoOverCommitTimeout); err != nil {
		t.Fatalf("UpdateNodeResource: %v", err)
	}
	if rm.hits.Load() != 2 || calls.Load() != 1 {
		t.Fatalf("hits=%d authorize calls=%d, want 2 and 1", rm.hits.Load(), calls.Load())
	}
	rm.mu.Lock()
	if rm.bodies[0] == "" || rm.bodies[0] != rm.bodies[1] {
		t.Errorf("replayed body %q != %q", rm.bodies[1], rm.bodies[0])
	}
	for _, u := range rm.users {
		if u != "" {
			t.Errorf("user.name %q sent with SPNEGO", u)
		}
	}
	rm.mu.Unlock()
	// The hadoop.auth cookie spares the next handshake.
	if _, err := c.UpdateNodeResource(ctx, node1, Resource{MemoryMB: 4096, VCores: 3}, NoOverCommitTimeout); err != nil {
		t.Fatal(err)
	}
	if rm.hits.Load() != 3 || calls.Load() != 1 {
		t.Errorf("hits=%d authorize calls=%d, want 3 and 1", rm.hits.Load(), calls.Load())
	}
}

func TestSPNEGONonNegotiateChallengeIsReturned(t *testing.T) {
	rm := newSpnegoRM(t, `Basic realm="x"`)
	var calls atomic.Int32
	c := spnegoClient(t, rm.srv.URL, func(r *http.Request) error { calls.Add(1); return nil })
	_, err := c.Info(context.Background())
	if !IsForbidden(err) || calls.Load() != 0 {
		t.Fatalf("err=%v authorize calls=%d", err, calls.Load())
	}
}

func TestSPNEGOTokenFailure(t *testing.T) {
	rm := newSpnegoRM(t, "Negotiate")
	c := spnegoClient(t, rm.srv.URL, func(*http.Request) error { return errors.New("KDC unreachable") })
	_, err := c.Info(context.Background())
	if err == nil || !strings.Contains(err.Error(), "spnego: KDC unreachable") {
		t.Fatalf("err = %v", err)
	}
}

func TestSPNEGOProductionWiringReachesKerberos(t *testing.T) {
	// No fake: the gokrb5 client really tries to log in, against a KDC
	// address nobody listens on, and the failure surfaces as a clear error.
	rm := newSpnegoRM(t, "Negotiate")
	c := spnegoClient(t, rm.srv.URL, nil)
	c.maxAttempts = 1
	start := time.Now()
	_, err := c.Info(context.Background())
	if err == nil || !strings.Contains(err.Error(), "spnego") {
		t.Fatalf("err = %v", err)
	}
	t.Logf("error: %v", err)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestSPNEGOConfigErrors(t *testing.T) {
	conf, kt := krbFiles(t, true)
	confNoRealm, _ := krbFiles(t, false)
	tests := []struct {
		name string
		cfg  SPNEGOConfig
		want string
	}{
		{"missing krb5.conf", SPNEGOConfig{Principal: "a@EXAMPLE.COM", Keytab: kt, Krb5Conf: "/nonexistent/krb5.conf"}, "krb5.conf /nonexistent/krb5.conf"},
		{"missing keytab", SPNEGOConfig{Principal: "a@EXAMPLE.COM", Keytab: "/nonexistent/kt", Krb5Conf: conf}, "keytab /nonexistent/kt"},
		{"no realm anywhere", SPNEGOConfig{Principal: "rmsidecar", Keytab: kt, Krb5Conf: confNoRealm}, "has no realm"},
		{"realm from default_realm", SPNEGOConfig{Principal: "rmsidecar", Keytab: kt, Krb5Conf: conf}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Config{RMURLs: []string{"http://rm:8088"}, SPNEGO: &tt.cfg})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestSplitPrincipal(t *testing.T) {
	tests := []struct{ in, name, realm string }{
		{"rmsidecar@EXAMPLE.COM", "rmsidecar", "EXAMPLE.COM"},
		{"rm/host.example.com@EXAMPLE.COM", "rm/host.example.com", "EXAMPLE.COM"},
		{"rmsidecar", "rmsidecar", ""},
	}
	for _, tt := range tests {
		n, r := splitPrincipal(tt.in)
		if n != tt.name || r != tt.realm {
			t.Errorf("splitPrincipal(%q) = %q, %q", tt.in, n, tt.realm)
		}
	}
}
