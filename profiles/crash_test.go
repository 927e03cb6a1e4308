package profiles

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashEnv names the store a re-executed test binary writes to until killed.
const crashEnv = "PROFILES_CRASH_CHILD_DB"

const crashRecords = 40

type crashValue struct {
	I   int    `json:"i"`
	Pad string `json:"pad"`
}

// TestCrashChild is the child half of TestCrashKillMidWrite; it does nothing
// unless re-executed with crashEnv set.
func TestCrashChild(t *testing.T) {
	path := os.Getenv(crashEnv)
	if path == "" {
		t.Skip("child process of TestCrashKillMidWrite only")
	}
	ctx := context.Background()
	db, err := Open(path, Options{LockTimeout: 10 * time.Second})
	if err != nil {
		fmt.Println("OPEN-FAILED", err)
		os.Exit(3)
	}
	var i int
	if _, err := db.Get(ctx, "crash", "state", &i); err != nil {
		fmt.Println("GET-FAILED", err)
		os.Exit(3)
	}
	// Records of a few KiB each make one batch span many pages, so a kill
	// lands inside page writes, not only between transactions.
	pad := strings.Repeat("x", 3000)
	for first := true; ; first = false {
		i++
		err := db.Batch(ctx, func(tx *Tx) error {
			for k := range crashRecords {
				if err := tx.Put("crash", fmt.Sprintf("r%03d", k), crashValue{I: i, Pad: pad}); err != nil {
					return err
				}
			}
			return tx.Put("crash", "state", i)
		})
		if err != nil {
			fmt.Println("BATCH-FAILED", err)
			os.Exit(3)
		}
		if first {
			fmt.Println("READY")
		}
	}
}

// TestCrashKillMidWrite SIGKILLs a child process that writes batches in a
// loop, then reopens the store and checks that the last committed batch is
// whole: every record present and decodable, one revision and one value
// across the batch, store revision equal to it, and progress monotonic
// across kills.
func TestCrashKillMidWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	ctx := context.Background()
	lastI, lastRev := 0, uint64(0)
	for round := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if line := sc.Text(); line == "READY" || strings.HasSuffix(line, "FAILED") || strings.Contains(line, "FAILED ") {
					ready <- line
					return
				}
			}
			ready <- "EOF"
		}()
		select {
		case line := <-ready:
			if line != "READY" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: child: %s", round, line)
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child never became ready", round)
		}
		time.Sleep(time.Duration(20+rand.IntN(200)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()

		db, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		var state int
		if found, err := db.Get(ctx, "crash", "state", &state); err != nil || !found {
			t.Fatalf("round %d: state: found=%v err=%v", round, found, err)
		}
		stateRec, _, _ := db.GetRecord(ctx, "crash", "state")
		storeRev, err := db.Rev(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if stateRec.Rev != storeRev {
			t.Fatalf("round %d: state rev %d != store rev %d", round, stateRec.Rev, storeRev)
		}
		keys, _ := db.List(ctx, "crash")
		if len(keys) != crashRecords+1 {
			t.Fatalf("round %d: %d keys, want %d", round, len(keys), crashRecords+1)
		}
		for k := range crashRecords {
			key := fmt.Sprintf("r%03d", k)
			var v crashValue
			if found, err := db.Get(ctx, "crash", key, &v); err != nil || !found {
				t.Fatalf("round %d: %s: found=%v err=%v", round, key, found, err)
			}
			rec, _, _ := db.GetRecord(ctx, "crash", key)
			if v.I != state || rec.Rev != storeRev || len(v.Pad) != 3000 {
				t.Fatalf("round %d: %s torn: i=%d rev=%d pad=%d, batch i=%d rev=%d", round, key, v.I, rec.Rev, len(v.Pad), state, storeRev)
			}
		}
		if state <= lastI || storeRev <= lastRev {
			t.Fatalf("round %d: no progress or went back: i %d->%d rev %d->%d", round, lastI, state, lastRev, storeRev)
		}
		t.Logf("round %d: killed after batch %d (rev %d)", round, state, storeRev)
		lastI, lastRev = state, storeRev
		db.Close()
	}
}
