package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitSpec(t *testing.T) {
	tests := []struct {
		spec, format, path string
		ok                 bool
	}{
		{"swim:../shared/traces/x.tsv", "swim", "../shared/traces/x.tsv", true},
		{"rumen:/tmp/a:b.json", "rumen", "/tmp/a:b.json", true},
		{"sls:jobs.json", "sls", "jobs.json", true},
		{"swim:", "", "", false},
		{"x.tsv", "", "", false},
		{"gridmix:x", "", "", false},
	}
	for _, tt := range tests {
		format, path, err := SplitSpec(tt.spec)
		if (err == nil) != tt.ok || format != tt.format || path != tt.path {
			t.Errorf("SplitSpec(%q) = %q, %q, %v", tt.spec, format, path, err)
		}
	}
}

func TestLoadFileNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsv")
	if err := os.WriteFile(bad, []byte("job0\t1\t1\t1\t1\t1\njob1\t2\t1\tx\t1\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFile(FormatSWIM, bad, SWIMOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), bad+":2:10: map input bytes:") {
		t.Errorf("err = %v, want it to start with %s:2:10: map input bytes:", err, bad)
	}
	badJSON := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badJSON, []byte("{\"jobID\":1}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatRumen, FormatSLS} {
		if _, err := LoadFile(f, badJSON, SWIMOptions{}); err == nil || !strings.HasPrefix(err.Error(), badJSON+":1:") {
			t.Errorf("%s: err = %v, want it to name %s:1:", f, err, badJSON)
		}
	}
	if _, err := LoadFile(FormatSWIM, filepath.Join(dir, "missing.tsv"), SWIMOptions{}); err == nil {
		t.Error("missing file accepted")
	}
	if _, err := LoadFile("gridmix", bad, SWIMOptions{}); err == nil {
		t.Error("unknown format accepted")
	}
}
