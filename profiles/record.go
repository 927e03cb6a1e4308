package profiles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// FormatVersion is the "v" of the export document.
const FormatVersion = 1

// Limits on names; bbolt caps keys at 32 KiB, and nothing sensible needs more.
const (
	maxNamespaceLen = 255
	maxKeyLen       = 4096
)

// Error is the type of the package's sentinel errors; they are constants so
// that no package-level variables exist.
type Error string

func (e Error) Error() string { return string(e) }

// ErrClosed is returned by every method after Close.
const ErrClosed = Error("profiles: store is closed")

// Versioned is implemented by values that carry their own schema version.
// Values that do not implement it are stored with schema 1.
type Versioned interface {
	ProfileSchema() int
}

// Record is one stored record with its metadata.
type Record struct {
	NS     string          `json:"ns"`
	Key    string          `json:"key"`
	Schema int             `json:"schema"`
	Rev    uint64          `json:"rev"`
	Value  json.RawMessage `json:"value"`
}

// Store is the small interface policies, the engine and the CLI depend on.
// *DB implements it with either backend.
type Store interface {
	Get(ctx context.Context, ns, key string, v any) (bool, error)
	Put(ctx context.Context, ns, key string, v any) error
	Delete(ctx context.Context, ns, key string) error
	List(ctx context.Context, ns string) ([]string, error)
	Batch(ctx context.Context, fn func(tx *Tx) error) error
	Export(ctx context.Context, w io.Writer) error
	Import(ctx context.Context, r io.Reader) error
	Close() error
}

// envelope is what a backend stores per record.
type envelope struct {
	Schema int             `json:"schema"`
	Rev    uint64          `json:"rev"`
	Value  json.RawMessage `json:"value"`
}

func schemaOf(v any) int {
	if sv, ok := v.(Versioned); ok {
		if s := sv.ProfileSchema(); s > 0 {
			return s
		}
	}
	return 1
}

func checkName(ns, key string) error {
	switch {
	case ns == "":
		return errors.New("profiles: empty namespace")
	case len(ns) > maxNamespaceLen:
		return fmt.Errorf("profiles: namespace %.32q...: longer than %d bytes", ns, maxNamespaceLen)
	case key == "":
		return fmt.Errorf("profiles: %s: empty key", ns)
	case len(key) > maxKeyLen:
		return fmt.Errorf("profiles: %s: key %.32q...: longer than %d bytes", ns, key, maxKeyLen)
	}
	return nil
}

func validNS(ns string) error {
	if ns == "" {
		return errors.New("profiles: empty namespace")
	}
	if len(ns) > maxNamespaceLen {
		return fmt.Errorf("profiles: namespace %.32q...: longer than %d bytes", ns, maxNamespaceLen)
	}
	return nil
}
