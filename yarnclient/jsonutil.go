package yarnclient

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// list decodes Hadoop's list element: a JSON array, a bare object (some
// Jersey versions unwrap one-element lists), or null.
type list[T any] []T

func (l *list[T]) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*l = nil
		return nil
	case b[0] == '[':
		var s []T
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*l = s
		return nil
	default:
		var one T
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*l = []T{one}
		return nil
	}
}

// Bool accepts true, false, "true" and "false" (older RMs quote booleans).
type Bool bool

func (v *Bool) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	switch strings.ToLower(s) {
	case "true":
		*v = true
	case "false", "", "null":
		*v = false
	default:
		return &json.UnmarshalTypeError{Value: string(b), Type: boolType}
	}
	return nil
}

// Float accepts numbers, quoted numbers and "NaN" / "Infinity" (the FIFO
// scheduler reports usedCapacity "NaN" on an empty cluster).
type Float float64

func (v *Float) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(bytes.TrimSpace(b)), `"`)
	if s == "" || s == "null" {
		*v = 0
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		switch s {
		case "NaN":
			f = math.NaN()
		case "Infinity":
			f = math.Inf(1)
		case "-Infinity":
			f = math.Inf(-1)
		default:
			return &json.UnmarshalTypeError{Value: string(b), Type: floatType}
		}
	}
	*v = Float(f)
	return nil
}

// Strings accepts a JSON array of strings, a single string, or null (conf
// property "source", node labels).
type Strings []string

func (v *Strings) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) == 0 || bytes.Equal(b, []byte("null")):
		*v = nil
	case b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = Strings{s}
	default:
		var s []string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*v = s
	}
	return nil
}

var (
	boolType  = reflect.TypeFor[bool]()
	floatType = reflect.TypeFor[float64]()
)
