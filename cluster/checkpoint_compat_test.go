package cluster

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// checkpointV1Golden is a checkpoint of the sample log cut at three quarters, written
// by the State of 9c23a14 (before Attempt kept its allocation and progress
// stamps as StartTS/ProgressTS plus an id, and its finish and output stamps
// out of line). Regenerate only with the state that wrote it:
// UPDATE_CHECKPOINT_GOLDEN=1 go test -run TestCheckpointV1Golden ./cluster.
const checkpointV1Golden = "testdata/checkpoint-v1.json"

func checkpointJSON(t *testing.T, s *State) []byte {
	t.Helper()
	b, err := json.MarshalIndent(s.Checkpoint(), "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestCheckpointV1Golden: a checkpoint written before the Attempt layout
// changed restores to the state it was taken from, accepts and rejects the
// events that state would, and is written again byte for byte.
func TestCheckpointV1Golden(t *testing.T) {
	evs := readLog(t, sampleLog)
	cut := len(evs) * 3 / 4
	orig := build(evs[:cut])
	if os.Getenv("UPDATE_CHECKPOINT_GOLDEN") != "" {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(checkpointV1Golden, checkpointJSON(t, orig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(checkpointV1Golden)
	if err != nil {
		t.Fatal(err)
	}
	var ck Checkpoint
	if err := json.Unmarshal(old, &ck); err != nil {
		t.Fatal(err)
	}
	restored, err := Restore(&ck)
	if err != nil {
		t.Fatal(err)
	}
	if got := checkpointJSON(t, restored); !bytes.Equal(got, old) {
		t.Fatalf("the restored state writes a different checkpoint:\n%s", got)
	}
	if got := checkpointJSON(t, orig); !bytes.Equal(got, old) {
		t.Fatalf("the state writes a different checkpoint than 9c23a14 did:\n%s", got)
	}
	if got, want := snapshotJSON(t, restored), snapshotJSON(t, orig); got != want {
		t.Fatalf("restored snapshot differs\n got %s\nwant %s", got, want)
	}
	for i := range evs[:cut] {
		if restored.Apply(&evs[i]) {
			t.Fatalf("re-applying event %s changed the restored state", evs[i].ID)
		}
	}
	for i := cut; i < len(evs); i++ {
		restored.Apply(&evs[i])
	}
	if got, want := snapshotJSON(t, restored), snapshotJSON(t, build(evs)); got != want {
		t.Fatal("state after resuming differs from an uninterrupted run")
	}
}
