package events

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one JSONL line; longer lines are rejected, not truncated.
const MaxLineBytes = 4 << 20

// LineError is a decoding failure at one line of a JSONL log.
type LineError struct {
	Line  int    // 1-based
	Raw   []byte // the offending line, for dead-letter or --skip-bad output
	Field string // JSON field, empty when the line is not a JSON object
	Err   error
}

// Error reads "line N: <field>: <reason>" (the FieldError carries the field).
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Reader reads events from a JSONL stream, one event per line. Blank lines
// are skipped. After a *LineError the reader can continue with the next line.
type Reader struct {
	sc   *bufio.Scanner
	line int
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxLineBytes)
	return &Reader{sc: sc}
}

// Line is the number of the line read last (1-based).
func (r *Reader) Line() int { return r.line }

// Next returns the next event, io.EOF at the end, a *LineError for a line
// that does not decode (the stream stays usable), or another error when the
// underlying reader fails.
func (r *Reader) Next() (Event, error) {
	for r.sc.Scan() {
		r.line++
		raw := r.sc.Bytes()
		if isBlank(raw) {
			continue
		}
		ev, err := Decode(raw)
		if err != nil {
			le := &LineError{Line: r.line, Raw: append([]byte(nil), raw...), Err: err}
			var fe *FieldError
			if errors.As(err, &fe) {
				le.Field = fe.Field
			}
			return Event{}, le
		}
		return ev, nil
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Event{}, &LineError{Line: r.line + 1, Err: fmt.Errorf("line longer than %d bytes", MaxLineBytes)}
		}
		return Event{}, fmt.Errorf("read line %d: %w", r.line+1, err)
	}
	return Event{}, io.EOF
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Writer writes events as JSONL.
type Writer struct {
	w *bufio.Writer
}

// NewWriter returns a Writer over w. Call Flush when done.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write encodes and writes one event followed by a newline.
func (w *Writer) Write(e *Event) error {
	b, err := Encode(e)
	if err != nil {
		return err
	}
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("write event %q: %w", e.ID, err)
	}
	return w.w.WriteByte('\n')
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }
