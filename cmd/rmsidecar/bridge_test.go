package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/rs/zerolog"
	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/rmsidecar/rmsidecar/config"
	"github.com/rmsidecar/rmsidecar/events"
	"github.com/rmsidecar/rmsidecar/yarnclient"
)

const (
	bridgeNode1 = "nm1.example.com:45454"
	bridgeNode2 = "nm2.example.com:45454"
	bridgeApp   = "application_1763719000000_0007"
)

// fakeBridgeRM answers the RM reads of one bridge poll: two running nodes
// and one accepted app. It counts the requests.
func fakeBridgeRM(t *testing.T) (*httptest.Server, *int) {
	t.Helper()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/ws/v1/cluster/nodes":
			_, _ = w.Write([]byte(`{"nodes":{"node":[` +
				`{"id":"` + bridgeNode1 + `","rack":"/r1","state":"RUNNING","totalResource":{"memory":8192,"vCores":8}},` +
				`{"id":"` + bridgeNode2 + `","rack":"/r2","state":"RUNNING","totalResource":{"memory":8192,"vCores":8}}]}}`))
		case "/ws/v1/cluster/apps":
			_, _ = w.Write([]byte(`{"apps":{"app":[{"id":"` + bridgeApp + `","user":"alice","name":"wc","queue":"default",` +
				`"state":"ACCEPTED","finalStatus":"UNDEFINED","applicationType":"SPARK","startedTime":1763719000100}]}}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"RemoteException":{"exception":"NotFoundException","message":"` + r.URL.Path + `"}}`))
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestBridgeBadFlagsExit2(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no rm", []string{"bridge"}, "--rm: no ResourceManager address"},
		{"rm not a URL", []string{"bridge", "--rm", "rm1:8088"}, `--rm: "rm1:8088" is not an http(s)://host:port address`},
		{"zero interval", []string{"bridge", "--rm", "http://rm1:8088", "--interval", "0s"}, "--interval: must be > 0"},
		{"bad interval", []string{"bridge", "--rm", "http://rm1:8088", "--interval", "often"}, "invalid argument"},
		{"topic without brokers", []string{"bridge", "--rm", "http://rm1:8088", "--topic", "ev"}, "--topic and --node-topic need Kafka brokers"},
		{"unknown flag", []string{"bridge", "--rm", "http://rm1:8088", "--poll", "1s"}, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, tt.args...)
			if code != exitBadUse || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, stderr %q; want exit 2 containing %q", code, errOut, tt.want)
			}
		})
	}
}

func TestBridgeHelpNamesFlagsAndCost(t *testing.T) {
	code, out, _ := run(t, "bridge", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--rm", "--kafka", "--topic", "--node-topic", "--interval", "--once", "Cost per poll"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestBridgeOnceWritesEventsV1: without brokers, one poll is written to
// stdout as valid events v1, and the poll's REST calls are logged.
func TestBridgeOnceWritesEventsV1(t *testing.T) {
	srv, _ := fakeBridgeRM(t)
	code, out, errOut := run(t, "bridge", "--rm", srv.URL, "--once", "--log-format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var types []string
	rd := events.NewReader(strings.NewReader(out))
	for {
		ev, err := rd.Next()
		if err != nil {
			break
		}
		types = append(types, string(ev.Type)+" "+ev.Key())
	}
	want := []string{
		"node.registered " + bridgeNode1, "node.heartbeat " + bridgeNode1,
		"node.registered " + bridgeNode2, "node.heartbeat " + bridgeNode2,
		"app.submitted " + bridgeApp,
	}
	if strings.Join(types, ",") != strings.Join(want, ",") {
		t.Errorf("events = %v\nwant %v\nstdout %s", types, want, out)
	}
	if !strings.Contains(errOut, `"rest_calls":2`) || !strings.Contains(errOut, `"events":5`) {
		t.Errorf("poll log lacks rest_calls 2 / events 5: %s", errOut)
	}
}

// TestBridgeRMUnreachable: the RM refuses connections; --once retries, then
// fails with exit 1 and an error naming the call and the attempts.
func TestBridgeRMUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	code, _, errOut := run(t, "bridge", "--rm", "http://"+addr, "--once", "--log-format", "json")
	if code != exitFailure {
		t.Fatalf("exit %d, want 1: %s", code, errOut)
	}
	for _, want := range []string{"yarnclient: Nodes: giving up after 5 attempts", "connection refused", `"attempt":4`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %s", want, errOut)
		}
	}
}

// TestBridgeIntoKafka: events are keyed by app, else node; node events go to
// --node-topic.
func TestBridgeIntoKafka(t *testing.T) {
	srv, _ := fakeBridgeRM(t)
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "ev", "nodes"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	code, out, errOut := run(t, "bridge", "--rm", srv.URL, "--once", "--kafka", strings.Join(c.ListenAddrs(), ","),
		"--topic", "ev", "--node-topic", "nodes", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("stdout with --kafka: %q", out)
	}
	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_0_0_0
	cons, err := sarama.NewConsumer(c.ListenAddrs(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	read := func(topic string, want int) []string {
		pc, err := cons.ConsumePartition(topic, 0, sarama.OffsetOldest)
		if err != nil {
			t.Fatal(err)
		}
		defer pc.Close()
		var got []string
		for range want {
			select {
			case m := <-pc.Messages():
				ev, err := events.Decode(m.Value)
				if err != nil {
					t.Fatalf("%s: %v", topic, err)
				}
				if string(m.Key) != ev.Key() {
					t.Errorf("%s keyed %q, event key %q", ev.Type, m.Key, ev.Key())
				}
				got = append(got, string(ev.Type))
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: fewer than %d messages (got %v)", topic, want, got)
			}
		}
		return got
	}
	if got := read("nodes", 4); strings.Join(got, ",") != "node.registered,node.heartbeat,node.registered,node.heartbeat" {
		t.Errorf("nodes topic = %v", got)
	}
	if got := read("ev", 1); got[0] != "app.submitted" {
		t.Errorf("events topic = %v", got)
	}
}

// TestRMWriterFromConfig: run builds the rm actuator's writer only when
// actuators.enabled names rm, from rm.*.
func TestRMWriterFromConfig(t *testing.T) {
	tests := []struct {
		name   string
		env    []string
		wantRM bool
	}{
		{"log only", nil, false},
		{"rm enabled", []string{"RMSIDECAR_ACTUATORS_ENABLED=log,rm", "RMSIDECAR_RM_URLS=http://rm1:8088"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Load("", tt.env, nil)
			if err != nil {
				t.Fatal(err)
			}
			w, err := rmWriter(cfg, zerolog.Nop())
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := w.(*yarnclient.HintWriter); ok != tt.wantRM || (w != nil) != tt.wantRM {
				t.Errorf("writer = %T, want a HintWriter: %v", w, tt.wantRM)
			}
		})
	}
}

// TestBridgeHTTPReflectsRM: the bridge's /readyz is 200 while polls reach the
// RM and 503 once the RM is gone; /metrics counts both.
func TestBridgeHTTPReflectsRM(t *testing.T) {
	srv, _ := fakeBridgeRM(t)
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- execute(ctx, []string{"bridge", "--rm", srv.URL, "--interval", "100ms", "--http", addr, "--log-format", "json"},
			stdio{in: strings.NewReader(""), out: &out, err: &errb}, []string{"RMSIDECAR_RM_TIMEOUT=300ms"})
	}()
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 30 s\n%s", what, errb.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("ready while the RM answers", func() bool { c, _ := get("/readyz"); return c == 200 })
	if c, body := get("/metrics"); c != 200 || !strings.Contains(body, "rmsidecar_bridge_rm_up 1") ||
		!strings.Contains(body, `rmsidecar_bridge_events_published_total 5`) {
		t.Errorf("/metrics while up: %d\n%s", c, body)
	}
	srv.Close() // the RM goes away
	waitFor("not ready once the RM is gone", func() bool {
		c, body := get("/readyz")
		return c == 503 && strings.Contains(body, "last poll failed")
	})
	if c, body := get("/metrics"); c != 200 || !strings.Contains(body, "rmsidecar_bridge_rm_up 0") ||
		!regexp.MustCompile(`rmsidecar_bridge_polls_total\{result="error"\} [1-9]`).MatchString(body) {
		t.Errorf("/metrics while down: %d\n%s", c, body)
	}
	if c, _ := get("/healthz"); c != 200 {
		t.Errorf("/healthz = %d while the RM is down, want 200 (the bridge itself is alive)", c)
	}
	cancel()
	if c := <-code; c != exitOK {
		t.Fatalf("exit %d\n%s", c, errb.String())
	}
}

// TestBridgeKerberosToRM: with rm.auth kerberos the bridge answers the RM's
// Negotiate challenge with the configured principal and keytab: here the KDC
// is unreachable, so the poll fails naming SPNEGO and the KDC, not a 401.
func TestBridgeKerberosToRM(t *testing.T) {
	dir := t.TempDir()
	kt := keytab.New()
	if err := kt.AddEntry("rmsidecar", "EXAMPLE.COM", "secret", time.Unix(1763719000, 0), 1, etypeID.AES256_CTS_HMAC_SHA1_96); err != nil {
		t.Fatal(err)
	}
	ktb, err := kt.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	ktPath, krb5Path := filepath.Join(dir, "rmsidecar.keytab"), filepath.Join(dir, "krb5.conf")
	if err := os.WriteFile(ktPath, ktb, 0o600); err != nil {
		t.Fatal(err)
	}
	kdc := freeAddr(t) // nothing listens there
	conf := "[libdefaults]\n default_realm = EXAMPLE.COM\n dns_lookup_kdc = false\n udp_preference_limit = 1\n" +
		"[realms]\n EXAMPLE.COM = {\n  kdc = " + kdc + "\n }\n"
	if err := os.WriteFile(krb5Path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	negotiated := 0
	rm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			negotiated++
		}
		w.Header().Set("WWW-Authenticate", "Negotiate")
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer rm.Close()
	env := []string{"RMSIDECAR_RM_AUTH=kerberos", "RMSIDECAR_KERBEROS_PRINCIPAL=rmsidecar@EXAMPLE.COM",
		"RMSIDECAR_KERBEROS_KEYTAB=" + ktPath, "RMSIDECAR_KERBEROS_KRB5_CONF=" + krb5Path, "RMSIDECAR_RM_TIMEOUT=2s"}
	var out, errb bytes.Buffer
	code := execute(context.Background(), []string{"bridge", "--rm", rm.URL, "--once", "--log-format", "json"},
		stdio{in: strings.NewReader(""), out: &out, err: &errb}, env)
	if code != exitFailure {
		t.Fatalf("exit %d, want 1: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "spnego") || !strings.Contains(errb.String(), kdc) {
		t.Errorf("stderr does not name SPNEGO and the KDC %s:\n%s", kdc, errb.String())
	}
	if strings.Contains(errb.String(), "secret") {
		t.Error("the keytab's password leaked into the log")
	}
}
