package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// WriteJSON writes res as indented results.json. Field order is the struct
// order and map keys are sorted (encoding/json), so equal values give equal
// bytes.
func WriteJSON(w io.Writer, res Results) error {
	if res.V == 0 {
		res.V = Version
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // a file, not a web page: keep "&" readable
	if err := enc.Encode(res); err != nil {
		return fmt.Errorf("encode results: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write results: %w", err)
	}
	return nil
}

// ReadJSON reads results.json. It accepts fields it does not know (a newer
// writer may add some) and rejects another major version.
func ReadJSON(r io.Reader) (Results, error) {
	var res Results
	if err := json.NewDecoder(r).Decode(&res); err != nil {
		return Results{}, fmt.Errorf("decode results: %w", err)
	}
	if res.V != Version {
		return Results{}, fmt.Errorf("results version %d, want %d", res.V, Version)
	}
	return res, nil
}

// ReadFile reads a results.json file.
func ReadFile(path string) (Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return Results{}, fmt.Errorf("read results: %w", err)
	}
	defer f.Close()
	res, err := ReadJSON(f)
	if err != nil {
		return Results{}, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}
