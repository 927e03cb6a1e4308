package profiles

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
)

// Export writes every record as one JSON document (see the package doc),
// records sorted by namespace and key, one record per line for readable
// diffs. The view is a consistent snapshot.
func (db *DB) Export(ctx context.Context, w io.Writer) error {
	leave, err := db.enter(ctx)
	if err != nil {
		return err
	}
	defer leave()
	var recs []Record
	err = db.b.view(func(r reader) error {
		nss, err := r.namespaces()
		if err != nil {
			return err
		}
		for _, ns := range nss {
			keys, err := r.keys(ns)
			if err != nil {
				return err
			}
			for _, k := range keys {
				if err := ctx.Err(); err != nil {
					return err
				}
				e, found, err := r.get(ns, k)
				if err != nil {
					return fmt.Errorf("%s/%s: %w", ns, k, err)
				}
				if found {
					recs = append(recs, Record{NS: ns, Key: k, Schema: e.Schema, Rev: e.Rev, Value: e.Value})
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("profiles: export: %w", err)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "{\"v\":%d,\"records\":[", FormatVersion)
	for i, rec := range recs {
		line, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("profiles: export %s/%s: %w", rec.NS, rec.Key, err)
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n")
		bw.Write(line)
	}
	bw.WriteString("\n]}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("profiles: export: %w", err)
	}
	return nil
}

// ValidationError reports a bad record in an import document.
type ValidationError struct {
	Index int    // record index, or -1 for the document itself
	Field string // JSON field name
	Msg   string
}

func (e *ValidationError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("profiles: import: %s: %s", e.Field, e.Msg)
	}
	return fmt.Sprintf("profiles: import: records[%d].%s: %s", e.Index, e.Field, e.Msg)
}

// ParseDocument decodes and validates an export document without touching a
// store; Import uses it, and the CLI can use it for a dry run.
func ParseDocument(r io.Reader) ([]Record, error) {
	var doc struct {
		V       *int              `json:"v"`
		Records []json.RawMessage `json:"records"`
	}
	dec := json.NewDecoder(r)
	if err := dec.Decode(&doc); err != nil {
		return nil, docDecodeError(-1, err)
	}
	if dec.More() {
		return nil, &ValidationError{Index: -1, Field: "document", Msg: "trailing data after the JSON document"}
	}
	if doc.V == nil {
		return nil, &ValidationError{Index: -1, Field: "v", Msg: "missing"}
	}
	if *doc.V != FormatVersion {
		return nil, &ValidationError{Index: -1, Field: "v", Msg: fmt.Sprintf("unsupported version %d (want %d)", *doc.V, FormatVersion)}
	}
	if doc.Records == nil {
		return nil, &ValidationError{Index: -1, Field: "records", Msg: "missing"}
	}
	out := make([]Record, 0, len(doc.Records))
	seen := make(map[nsKey]int, len(doc.Records))
	for i, raw := range doc.Records {
		var rec struct {
			NS     *string         `json:"ns"`
			Key    *string         `json:"key"`
			Schema *int            `json:"schema"`
			Rev    *uint64         `json:"rev"`
			Value  json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, docDecodeError(i, err)
		}
		switch {
		case rec.NS == nil:
			return nil, &ValidationError{Index: i, Field: "ns", Msg: "missing"}
		case rec.Key == nil:
			return nil, &ValidationError{Index: i, Field: "key", Msg: "missing"}
		case rec.Schema == nil:
			return nil, &ValidationError{Index: i, Field: "schema", Msg: "missing"}
		case *rec.Schema < 1:
			return nil, &ValidationError{Index: i, Field: "schema", Msg: fmt.Sprintf("must be >= 1, got %d", *rec.Schema)}
		case len(rec.Value) == 0 || bytes.Equal(bytes.TrimSpace(rec.Value), []byte("null")):
			return nil, &ValidationError{Index: i, Field: "value", Msg: "missing or null"}
		}
		if err := validNS(*rec.NS); err != nil {
			return nil, &ValidationError{Index: i, Field: "ns", Msg: err.Error()}
		}
		if err := checkName(*rec.NS, *rec.Key); err != nil {
			return nil, &ValidationError{Index: i, Field: "key", Msg: err.Error()}
		}
		k := nsKey{*rec.NS, *rec.Key}
		if j, dup := seen[k]; dup {
			return nil, &ValidationError{Index: i, Field: "key", Msg: fmt.Sprintf("duplicate of records[%d] (%s/%s)", j, k.ns, k.key)}
		}
		seen[k] = i
		var rev uint64
		if rec.Rev != nil {
			rev = *rec.Rev
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, rec.Value); err != nil {
			return nil, &ValidationError{Index: i, Field: "value", Msg: err.Error()}
		}
		out = append(out, Record{NS: k.ns, Key: k.key, Schema: *rec.Schema, Rev: rev, Value: compact.Bytes()})
	}
	return out, nil
}

// docDecodeError turns a JSON decoding error into a ValidationError naming
// the field where the decoder knows it.
func docDecodeError(index int, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "record"
			if index < 0 {
				field = "document"
			}
		}
		want := te.Type.String()
		if te.Type.Kind() == reflect.Struct {
			want = "object"
		}
		return &ValidationError{Index: index, Field: field, Msg: fmt.Sprintf("expected %s, got JSON %s", want, te.Value)}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &ValidationError{Index: index, Field: "document", Msg: fmt.Sprintf("JSON syntax error at byte %d: %v", se.Offset, err)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &ValidationError{Index: index, Field: "document", Msg: "JSON truncated (unexpected end of input)"}
	}
	if index < 0 {
		return &ValidationError{Index: index, Field: "document", Msg: err.Error()}
	}
	return &ValidationError{Index: index, Field: "record", Msg: err.Error()}
}

// Import validates the whole document first, then writes all records in one
// transaction (all or nothing). Records overwrite same-named records; other
// records stay. Imported records get the importing store's next revision.
func (db *DB) Import(ctx context.Context, r io.Reader) error {
	recs, err := ParseDocument(r)
	if err != nil {
		return err
	}
	return db.Batch(ctx, func(tx *Tx) error {
		for _, rec := range recs {
			if err := tx.putRaw(rec.NS, rec.Key, rec.Schema, rec.Value); err != nil {
				return err
			}
		}
		return nil
	})
}
