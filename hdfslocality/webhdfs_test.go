package hdfslocality

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

func TestWebHDFSRecordedBlockLocations(t *testing.T) {
	nn := newFakeNN(t, map[string]string{"/data/in/part-00000": "blocks_part-00000.json"})
	w, err := NewWebHDFS(WebHDFSOptions{Addrs: []string{nn.srv.URL}, User: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := w.BlockLocations(context.Background(), "/data/in/part-00000", 299892736)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 {
		t.Fatalf("%d blocks", len(blocks))
	}
	b := blocks[1]
	if b.Offset != 134217728 || b.Length != 134217728 || strings.Join(b.Hosts, ",") != "dn2.example.com,dn3.example.com,dn4.example.com" ||
		b.Names[2] != "10.0.2.4:9866" || b.StorageTypes[1] != "SSD" || b.CachedHosts[0] != "dn2.example.com" || b.topologyPaths[0] != "/rack1/10.0.1.2:9866" {
		t.Fatalf("block 1 = %+v", b)
	}
	req := nn.requests[0]
	for _, want := range []string{"/webhdfs/v1/data/in/part-00000?", "op=GETFILEBLOCKLOCATIONS", "offset=0", "length=299892736", "user.name=alice"} {
		if !strings.Contains(req, want) {
			t.Errorf("request %q lacks %q", req, want)
		}
	}
}

func TestWebHDFSPathEscaping(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.EscapedPath()
		w.Write([]byte(`{"BlockLocations":{"BlockLocation":[]}}`))
	}))
	defer srv.Close()
	w, _ := NewWebHDFS(WebHDFSOptions{Addrs: []string{srv.URL}})
	if _, err := w.BlockLocations(context.Background(), "/data/a b/c%d?e", 10); err != nil {
		t.Fatal(err)
	}
	if got != "/webhdfs/v1/data/a%20b/c%25d%3Fe" {
		t.Fatalf("escaped path %q", got)
	}
}

func TestWebHDFSErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		body        string
		fixture     string
		is          error
		unavailable bool
		contains    string
	}{
		{name: "not found", status: 404, fixture: "remote_file_not_found.json", is: os.ErrNotExist, contains: "java.io.FileNotFoundException: File does not exist"},
		{name: "denied", status: 403, fixture: "remote_access_denied.json", is: os.ErrPermission, contains: "Permission denied"},
		{name: "op unsupported", status: 400, body: `{"RemoteException":{"exception":"IllegalArgumentException","javaClassName":"java.lang.IllegalArgumentException","message":"Invalid value for webhdfs parameter \"op\": No enum constant"}}`, contains: "IllegalArgumentException"},
		{name: "standby only", status: 403, fixture: "remote_standby.json", unavailable: true, contains: "StandbyException"},
		{name: "proxy 502", status: 502, body: "<html>bad gateway</html>", unavailable: true, contains: "HTTP 502"},
		{name: "bad json", status: 200, body: `{"BlockLocations":`, unavailable: true, contains: "decode GETFILEBLOCKLOCATIONS"},
		{name: "wrong shape", status: 200, body: `{"FileStatus":{}}`, unavailable: true, contains: "no BlockLocations"},
		{name: "plain 400", status: 400, body: "nope", contains: "HTTP 400: nope"},
		{name: "webhdfs disabled", status: 404, body: "<html>Not Found</html>", contains: "dfs.webhdfs.enabled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(tc.body)
			if tc.fixture != "" {
				body = readFixture(t, tc.fixture)
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write(body)
			}))
			defer srv.Close()
			w, _ := NewWebHDFS(WebHDFSOptions{Addrs: []string{srv.URL}})
			_, err := w.BlockLocations(context.Background(), "/x", 1)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err %v is not %v", err, tc.is)
			}
			if got := errors.Is(err, ErrUnavailable); got != tc.unavailable {
				t.Errorf("unavailable = %v, want %v (%v)", got, tc.unavailable, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("err %q lacks %q", err, tc.contains)
			}
		})
	}
}

func TestWebHDFSHAFailover(t *testing.T) {
	fx := map[string]string{"/f": "blocks_part-00001.json"}
	nn1, nn2 := newFakeNN(t, fx), newFakeNN(t, fx)
	nn1.set(true, false) // nn1 standby, nn2 active
	failovers := 0
	w, err := NewWebHDFS(WebHDFSOptions{
		Addrs:      []string{nn1.srv.URL, strings.TrimPrefix(nn2.srv.URL, "http://")},
		OnFailover: func(string, error) { failovers++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := w.BlockLocations(ctx, "/f", 1); err != nil {
		t.Fatal(err)
	}
	if nn1.hits.Load() != 1 || nn2.hits.Load() != 1 || failovers != 1 {
		t.Fatalf("first call: nn1 %d nn2 %d failovers %d", nn1.hits.Load(), nn2.hits.Load(), failovers)
	}
	// The active NameNode is remembered: nn1 is not asked again.
	w.BlockLocations(ctx, "/f", 1)
	if nn1.hits.Load() != 1 || nn2.hits.Load() != 2 {
		t.Fatalf("second call: nn1 %d nn2 %d", nn1.hits.Load(), nn2.hits.Load())
	}
	// Failover: nn2 dies, nn1 becomes active.
	nn1.set(false, false)
	nn2.srv.Close()
	if _, err := w.BlockLocations(ctx, "/f", 1); err != nil {
		t.Fatalf("after failover: %v", err)
	}
	if failovers != 2 {
		t.Fatalf("failovers %d", failovers)
	}
	// Not-found from the active NameNode is final: no failover.
	if _, err := w.BlockLocations(ctx, "/missing", 1); !errors.Is(err, os.ErrNotExist) || failovers != 2 {
		t.Fatalf("missing: %v failovers %d", err, failovers)
	}
	// Everything down: ErrUnavailable naming every attempt.
	nn1.set(false, true)
	_, err = w.BlockLocations(ctx, "/f", 1)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "HTTP 503") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("all down: %v", err)
	}
}

func TestWebHDFSOptions(t *testing.T) {
	for _, addrs := range [][]string{nil, {"ftp://x:1"}, {"http://"}} {
		if _, err := NewWebHDFS(WebHDFSOptions{Addrs: addrs}); err == nil {
			t.Errorf("addrs %q accepted", addrs)
		}
	}
	w, err := NewWebHDFS(WebHDFSOptions{Addrs: []string{"nn1:9870", "https://nn2:9871/"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Addrs(), ","); got != "http://nn1:9870,https://nn2:9871" {
		t.Fatalf("Addrs = %s", got)
	}
	if _, err := w.BlockLocations(context.Background(), "relative", 1); err == nil {
		t.Fatal("relative path accepted")
	}
	if b, err := w.BlockLocations(context.Background(), "/empty", 0); err != nil || b != nil {
		t.Fatalf("empty file: %v %v", b, err)
	}
}

func TestWebHDFSLegacyNameNode(t *testing.T) {
	nn := newFakeNN(t, map[string]string{"/f": "unused"})
	nn.legacy = true
	w, _ := NewWebHDFS(WebHDFSOptions{Addrs: []string{nn.srv.URL}})
	ctx := context.Background()
	blocks, err := w.BlockLocations(ctx, "/f", 1048576)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 {
		t.Fatalf("%d blocks", len(blocks))
	}
	b := blocks[0]
	if b.Length != 1048576 || strings.Join(b.Hosts, ",") != "dn5.example.com,dn3.example.com" ||
		strings.Join(b.Names, ",") != "10.0.3.5:9866,10.0.2.3:9866" || b.topologyPaths[1] != "/rack2/10.0.2.3:9866" {
		t.Fatalf("legacy block = %+v", b)
	}
	if !w.legacy.Load() || nn.hits.Load() != 2 {
		t.Fatalf("legacy=%v hits=%d", w.legacy.Load(), nn.hits.Load())
	}
	// Remembered: one request per call from now on; not-found still maps.
	if _, err := w.BlockLocations(ctx, "/missing", 1); !errors.Is(err, os.ErrNotExist) || nn.hits.Load() != 3 {
		t.Fatalf("legacy missing: %v hits=%d", err, nn.hits.Load())
	}
}
