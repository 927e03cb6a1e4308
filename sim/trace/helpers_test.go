package trace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// sharedTraces is the directory of the real traces committed under
// testdata/traces at the module root.
func sharedTraces(t *testing.T) string {
	t.Helper()
	return filepath.Join("..", "..", "testdata", "traces")
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
