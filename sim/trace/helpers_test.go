package trace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sharedTraces is the directory of real traces, ../shared/traces beside the
// module root (the layout of /work and of a CI clone). Tests that need it
// skip with a clear message when it is absent.
func sharedTraces(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory; cannot locate ../shared/traces")
		}
		dir = parent
	}
	traces := filepath.Join(dir, "..", "shared", "traces")
	if _, err := os.Stat(traces); err != nil {
		t.Skipf("real traces not found at %s (clone shared/ beside the repository to run these tests): %v", traces, err)
	}
	return traces
}

// wantParseError checks that err is a *ParseError at line:col naming field
// and containing msg; col 0 and empty field/msg are not checked.
func wantParseError(t *testing.T, err error, line, col int, field, msg string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v (%T), want *ParseError", err, err)
	}
	if pe.Line != line || (col != 0 && pe.Column != col) {
		t.Errorf("error at %d:%d, want %d:%d (%v)", pe.Line, pe.Column, line, col, err)
	}
	if field != "" && pe.Field != field {
		t.Errorf("field %q, want %q (%v)", pe.Field, field, err)
	}
	if msg != "" && !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not mention %q", err, msg)
	}
}
