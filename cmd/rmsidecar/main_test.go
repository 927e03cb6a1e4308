package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/rmsidecar/rmsidecar/profiles"
)

const sample = "../../integration/testdata/sample-2jobs.jsonl"

func run(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), args, stdio{in: strings.NewReader(""), out: &out, err: &errb}, nil)
	return code, out.String(), errb.String()
}

func badLog(t *testing.T, lines ...string) string {
	t.Helper()
	good, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimSpace(string(good)), "\n")[:5]
	all = append(all, lines...)
	p := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(all, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReplaySamplePrintsSummary(t *testing.T) {
	code, out, errOut := run(t, "replay", "--events", sample, "--policies", "none", "--hints-out", "-", "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("policy none must emit no hints, got %q", out)
	}
	for _, want := range []string{"83 events applied", "nodes: 4 (4 running, 0 lost) on 2 racks", "apps:  2 (1 running, 1 finished)",
		"1 running maps", "2 pending maps", "1 pending reduces"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("summary lacks %q:\n%s", want, errOut)
		}
	}
}

func TestReplayBadInputExitsTwoNamingLineAndField(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"missing field", `{"v":1,"id":"x","type":"node.heartbeat","ts":5,"node":"n","used_vcores":1,"load1":0.1,"cpu_util":0.1}`,
			[]string{"bad.jsonl: line 6: used_memory_mb: required field missing"}},
		{"not json", `{"v":1, oops`, []string{"bad.jsonl: line 6: not JSON"}},
		{"unknown type", `{"v":1,"id":"x","type":"node.melted","ts":5}`, []string{"line 6: type: unknown event type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := run(t, "replay", "--events", badLog(t, tt.line), "--policies", "none", "--log-level", "error")
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %s", code, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q lacks %q", errOut, w)
				}
			}
		})
	}
}

func TestReplaySkipBadKeepsGoingAndKeepsTheLines(t *testing.T) {
	bad1 := `{"v":1,"id":"x","type":"node.lost","ts":5}`
	bad2 := `garbage`
	good := `{"v":1,"id":"y","type":"node.lost","ts":1763719300000,"node":"nm1.example:8041","reason":"expired"}`
	skip := filepath.Join(t.TempDir(), "rejected.jsonl")
	code, _, errOut := run(t, "replay", "--events", badLog(t, bad1, bad2, good), "--policies", "none", "--skip-bad", skip, "--log-level", "error")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, err := os.ReadFile(skip)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != bad1+"\n"+bad2+"\n" {
		t.Errorf("rejected file = %q", got)
	}
	if !strings.Contains(errOut, "6 events applied") || !strings.Contains(errOut, "2 bad lines skipped") || !strings.Contains(errOut, "1 lost") {
		t.Errorf("summary: %s", errOut)
	}
}

// TestReplaySkipBadPassesATooLongLine: --skip-bad carries on past a line over
// events.MaxLineBytes (issue 16: it looped on it forever) and counts it once.
func TestReplaySkipBadPassesATooLongLine(t *testing.T) {
	long := `{"v":1,"id":"` + strings.Repeat("x", 5<<20) + `"}`
	good := `{"v":1,"id":"y","type":"node.lost","ts":1763719300000,"node":"nm1.example:8041","reason":"expired"}`
	skip := filepath.Join(t.TempDir(), "rejected.jsonl")
	p := badLog(t, long, good)
	type result struct {
		code   int
		errOut string
	}
	done := make(chan result, 1)
	go func() {
		code, _, errOut := run(t, "replay", "--events", p, "--policies", "none", "--skip-bad", skip, "--log-level", "error")
		done <- result{code, errOut}
	}()
	var res result
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("replay --skip-bad did not finish on a too-long line")
	}
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.errOut)
	}
	if !strings.Contains(res.errOut, "6 events applied") || !strings.Contains(res.errOut, "1 bad lines skipped") || !strings.Contains(res.errOut, "1 lost") {
		t.Errorf("summary: %s", res.errOut)
	}
	if got, err := os.ReadFile(skip); err != nil || len(got) != 0 {
		t.Errorf("rejected file = %d bytes, %v; want empty (the line is not kept)", len(got), err)
	}
}

func TestReplayUnknownPolicyExitsTwo(t *testing.T) {
	code, _, errOut := run(t, "replay", "--events", sample, "--policies", "none+telepathy")
	if code != 2 || !strings.Contains(errOut, `unknown policy "telepathy"`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestReplayMissingFileAndFlag(t *testing.T) {
	if code, _, errOut := run(t, "replay", "--events", "/nope.jsonl", "--policies", "none"); code != 2 || !strings.Contains(errOut, "/nope.jsonl") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if code, _, errOut := run(t, "replay"); code != 2 || !strings.Contains(errOut, `"events" not set`) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestBadConfigExitsTwoNamingKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(p, []byte("kafka:\n  brokers: [nohost]\n"), 0o600)
	code, _, errOut := run(t, "--config", p, "replay", "--events", sample)
	if code != 2 || !strings.Contains(errOut, "kafka.brokers[0]: not host:port") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

func TestHelpExplainsEveryCommand(t *testing.T) {
	a := &app{io: stdio{out: &bytes.Buffer{}, err: &bytes.Buffer{}}}
	root := newRootCmd(a)
	for _, c := range append(root.Commands(), root) {
		for _, sub := range append(c.Commands(), c) {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			if sub.Short == "" {
				t.Errorf("%s has no short help", sub.CommandPath())
			}
			code, out, _ := run(t, append(strings.Fields(strings.TrimPrefix(sub.CommandPath(), "rmsidecar")), "--help")...)
			if code != 0 || !strings.Contains(out, "Usage:") {
				t.Errorf("%s --help: exit %d, %q", sub.CommandPath(), code, out)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := run(t, args...)
		if code != 0 || !strings.HasPrefix(out, "rmsidecar ") || !strings.Contains(out, "events v1") {
			t.Fatalf("%v: exit %d: %q", args, code, out)
		}
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{"go install of a tag", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"git checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}}, "0123456789ab"},
		{"dirty checkout", debug.BuildInfo{Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}, "abc-dirty"},
		{"no VCS", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	}
	for _, tt := range tests {
		if got := versionFromBuildInfo(&tt.info, "dev"); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestProfilesExportImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a.db")
	db, err := profiles.Open(src, profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Put(context.Background(), "samr", "node1/sort", map[string]float64{"m1": 0.8}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	code, doc, errOut := run(t, "profiles", "export", "--store", src)
	if code != 0 || !strings.Contains(doc, `"samr"`) {
		t.Fatalf("export exit %d: %s %s", code, doc, errOut)
	}
	exp := filepath.Join(dir, "export.json")
	os.WriteFile(exp, []byte(doc), 0o600)
	dst := filepath.Join(dir, "b.db")
	if code, _, errOut := run(t, "profiles", "import", exp, "--store", dst); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	db2, err := profiles.Open(dst, profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]float64
	if ok, err := db2.Get(context.Background(), "samr", "node1/sort", &got); !ok || err != nil || got["m1"] != 0.8 {
		t.Fatalf("imported record = %v %v %v", got, ok, err)
	}
	db2.Close()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"v":1,"records":[{"ns":"","key":"k","value":1}]}`), 0o600)
	if code, _, errOut := run(t, "profiles", "import", bad, "--store", dst); code != 2 || !strings.Contains(errOut, "bad.json") {
		t.Fatalf("bad import exit %d: %s", code, errOut)
	}
}

// TestHelpExamplesNameRepoFiles: the files the commands' examples use
// (scenarios/, testdata/, integration/, also under a package such as
// sim/trace/testdata/) are in the repository.
func TestHelpExamplesNameRepoFiles(t *testing.T) {
	files := regexp.MustCompile(`(?:[\w-]+/)*(?:scenarios|testdata|integration|config)/[\w./-]+\.(?:yaml|tsv|jsonl|json)\b`)
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, f := range files.FindAllString(c.Example+"\n"+c.Long, -1) {
			seen++
			if _, err := os.Stat(filepath.Join("..", "..", f)); err != nil {
				t.Errorf("rmsidecar %s --help names %s: %v", c.Name(), f, err)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&app{}))
	if seen < 3 {
		t.Errorf("only %d example files found: is the pattern stale?", seen)
	}
}

// TestReplayAppliesHostAliases: replay applies the config's
// model.host_aliases as the live sidecar does, so a split on a DataNode that
// registers an IP is local to the NodeManager beside it, and learning places
// the map there node-locally.
func TestReplayAppliesHostAliases(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "events.jsonl")
	lines := []string{
		`{"v":1,"id":"1","type":"node.registered","ts":1000,"node":"worker5.example.com:8041","rack":"/r1","vcores":8,"memory_mb":8192}`,
		`{"v":1,"id":"2","type":"app.submitted","ts":1001,"app":"application_1_0001","name":"wc","queue":"default","user":"u","job_type":"wordcount","maps":1,"reduces":0}`,
		`{"v":1,"id":"3","type":"task.pending","ts":1002,"app":"application_1_0001","task":"task_1_0001_m_000000","kind":"map","splits":[{"path":"/in/a","offset":0,"length":1048576,"hosts":["10.0.0.5"]}]}`,
		`{"v":1,"id":"4","type":"node.heartbeat","ts":2000,"node":"worker5.example.com:8041","used_vcores":0,"used_memory_mb":0,"load1":0,"cpu_util":0}`,
	}
	if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, config, want string
	}{
		{"with the alias", "model:\n  host_aliases:\n    - {datanode: 10.0.0.5, nodemanager: worker5.example.com}\n", `"locality":"node"`},
		{"without", "", `"locality":"off"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(cfg, []byte("log:\n  level: error\n"+c.config), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := run(t, "replay", "--config", cfg, "--events", log, "--policies", "learning-nb", "--hints-out", "-")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(out, `"kind":"place"`) || !strings.Contains(out, c.want) {
				t.Errorf("hints %s, want a place hint with %s", out, c.want)
			}
		})
	}
}
