package actuate

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rmsidecar/rmsidecar/policy"
)

var update = flag.Bool("update", false, "rewrite testdata/journal_keys.golden")

// hintsOfEveryKind are policy's identity fixtures: one hint of each kind.
func hintsOfEveryKind(t *testing.T) []policy.Hint {
	t.Helper()
	f, err := os.Open("../policy/testdata/identity_hints.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hs []policy.Hint
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var h policy.Hint
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if len(hs) < len(policy.HintKinds) {
		t.Fatalf("%d fixture hints, want one per kind", len(hs))
	}
	return hs
}

// TestJournalKeysGolden pins the keys the journal writes: they outlive the
// process, so a change needs a new policy.IdentityVersion and a migration.
func TestJournalKeysGolden(t *testing.T) {
	var b strings.Builder
	for _, h := range hintsOfEveryKind(t) {
		for _, a := range []string{"rm", "kafka"} {
			b.WriteString(a + "\t" + h.Target() + "\t" + journalKey(a, &h) + "\n")
		}
	}
	const golden = "testdata/journal_keys.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("journal keys changed:\n got\n%s\n want\n%s", b.String(), want)
	}
}

// TestLegacyContentV1IsFrozen: legacyContentV1 still writes what fmt's %v
// printed for each fixture hint when version 1 journals were written.
func TestLegacyContentV1IsFrozen(t *testing.T) {
	want, err := os.ReadFile("testdata/legacy_content_v1.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
	hs := hintsOfEveryKind(t)
	if len(lines) != len(hs) {
		t.Fatalf("%d legacy lines for %d hints", len(lines), len(hs))
	}
	for i, h := range hs {
		if got := string(legacyContentV1(nil, &h)); got != lines[i] {
			t.Errorf("hint %d:\n got  %q\n want %q", i, got, lines[i])
		}
	}
}

// TestJournalFromVersion1: a journal file written before identity version
// 2 (testdata/journal_v1.jsonl, made by that release for the fixture hints
// on actuators rm and kafka) still stops a second delivery after the
// upgrade, until each entry expires; new entries are written as version 2
// and both kinds survive a reopen.
func TestJournalFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.jsonl")
	old, err := os.ReadFile("testdata/journal_v1.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	hs := hintsOfEveryKind(t)
	for _, h := range hs {
		for _, a := range []string{"rm", "kafka"} {
			if !j.Seen(a, &h) {
				t.Errorf("%s %s: delivered before the upgrade, not seen after", a, h.Target())
			}
		}
		if j.Seen("log", &h) {
			t.Errorf("log %s: seen, but never delivered there", h.Target())
		}
		later := h
		later.TS = h.ExpiresTS
		if j.Seen("rm", &later) {
			t.Errorf("rm %s: seen after it expired", h.Target())
		}
		changed := h
		changed.App += "-other"
		if j.Seen("rm", &changed) {
			t.Errorf("rm %s: another decision seen", changed.Target())
		}
	}
	fresh := hs[0]
	fresh.Task += "-new"
	if err := j.Record("rm", &fresh); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if last := strings.Split(strings.TrimSpace(string(b)), "\n"); !strings.Contains(last[len(last)-1], `"v":2`) {
		t.Fatalf("new entry written without its identity version: %s", last[len(last)-1])
	}
	j, err = OpenFileJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if !j.Seen("rm", &fresh) || !j.Seen("kafka", &hs[len(hs)-1]) {
		t.Fatal("after a reopen: version 2 or version 1 entries lost")
	}
}
