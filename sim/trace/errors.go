package trace

import (
	"fmt"
	"strings"
)

// ParseError is a trace that does not parse, located as precisely as the
// format allows: the file (when known), 1-based line and column, and the
// field or column name.
type ParseError struct {
	File   string // empty when parsing a bare io.Reader without a name
	Line   int    // 1-based; 0 when unknown
	Column int    // 1-based byte column; 0 when unknown
	Field  string // column or JSON field, when known
	Err    error
}

// Error reads "file:line:col: field: reason", leaving out the parts that are
// unknown, like a compiler diagnostic so editors can jump to it.
func (e *ParseError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Line > 0 {
		fmt.Fprintf(&b, "%d:", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, "%d:", e.Column)
		}
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ParseError) Unwrap() error { return e.Err }
