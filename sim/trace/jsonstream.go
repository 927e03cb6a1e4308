package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
)

// lineIndex records where newlines fall in a stream as it is read, so a byte
// offset from encoding/json can be reported as line and column without
// holding the whole trace in memory.
type lineIndex struct {
	r        io.Reader
	read     int64
	newlines []int64 // offsets of '\n', ascending
}

func (l *lineIndex) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.newlines = append(l.newlines, l.read+int64(i))
		}
	}
	l.read += int64(n)
	return n, err
}

// position turns a 0-based byte offset into a 1-based line and column.
func (l *lineIndex) position(off int64) (line, col int) {
	i := sort.Search(len(l.newlines), func(i int) bool { return l.newlines[i] >= off })
	lineStart := int64(0)
	if i > 0 {
		lineStart = l.newlines[i-1] + 1
	}
	return i + 1, int(off-lineStart) + 1
}

// decodeJSONObjects calls each with every top-level JSON object of r, which
// may be a concatenated sequence of objects (Rumen's and SLS's writers) or
// one JSON array of them. each gets the raw object; an error it returns is
// located at the object's start unless it is a *json.UnmarshalTypeError or
// *json.SyntaxError, located at its own offset within the object, a
// *fieldError naming the field or an *offsetError naming the field and
// its offset.
func decodeJSONObjects(r io.Reader, file string, each func(raw json.RawMessage) error) error {
	idx := &lineIndex{r: r}
	br := bufio.NewReader(idx)
	dec := json.NewDecoder(br)
	var base int64 // whitespace consumed before the decoder started
	at := func(off int64, field string, err error) error {
		line, col := idx.position(base + off)
		return &ParseError{File: file, Line: line, Column: col, Field: field, Err: err}
	}
	inArray := false
	b, skipped, err := peekNonSpace(br)
	base = skipped
	if err == nil && b == '[' {
		if _, err := dec.Token(); err != nil {
			return at(dec.InputOffset(), "", err)
		}
		inArray = true
	}
	for {
		if inArray && !dec.More() {
			if _, err := dec.Token(); err != nil {
				return at(dec.InputOffset(), "", err)
			}
			inArray = false
			continue
		}
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return at(se.Offset-1, "", fmt.Errorf("invalid JSON: %w", err))
			}
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return at(idx.read-base, "", fmt.Errorf("truncated JSON: %w", err))
			}
			return at(dec.InputOffset(), "", fmt.Errorf("read: %w", err))
		}
		start := dec.InputOffset() - int64(len(raw))
		if len(raw) == 0 || raw[0] != '{' {
			return at(start, "", fmt.Errorf("expected a JSON object, found %.20s", raw))
		}
		if err := each(raw); err != nil {
			var te *json.UnmarshalTypeError
			var fe *fieldError
			var oe *offsetError
			switch {
			case errors.As(err, &oe):
				return at(start+oe.off, oe.field, oe.err)
			case errors.As(err, &te):
				return at(start+te.Offset-1, te.Field, fmt.Errorf("JSON %s where %s expected", te.Value, te.Type))
			case errors.As(err, &fe):
				return at(start, fe.field, fe.err)
			default:
				return at(start, "", err)
			}
		}
	}
}

// peekNonSpace skips leading whitespace and returns the next byte, unread,
// and how many bytes it skipped.
func peekNonSpace(br *bufio.Reader) (byte, int64, error) {
	var skipped int64
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, skipped, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			skipped++
			continue
		}
		return b, skipped, br.UnreadByte()
	}
}

// fieldError is a semantic problem with one field of a JSON object.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// offsetError is a fieldError located at byte off of its object, for
// parsers that know where the value is (SLS).
type offsetError struct {
	off   int64
	field string
	err   error
}

func (e *offsetError) Error() string { return e.field + ": " + e.err.Error() }
func (e *offsetError) Unwrap() error { return e.err }
